package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeduplicatorTest {

    private static final long HOUR = 3_600_000L;

    private static KeyedOneInputStreamOperatorTestHarness<String, Event, Event> harness(
            Deduplicator dedup) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(dedup),
                        (Event e) -> DuplicateRule.unit(e),
                        Types.STRING);
        h.open();
        return h;
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Event, Event> harness()
            throws Exception {
        return harness(Deduplicator.forLake(Duration.ofHours(1)));
    }

    private static Event event(String id, long time) {
        return new Event(id, "u-1", time, new byte[] {1, 2, 3});
    }

    private static Event event(String id, String key, long time, int payload) {
        return new Event(id, key, time, new byte[] {(byte) payload, 42});
    }

    @Test
    void shouldEmitEachIdOnce() throws Exception {
        try (var h = harness()) {
            h.processElement(new StreamRecord<>(event("a", 10), 10));
            h.processElement(new StreamRecord<>(event("b", 11), 11));
            h.processElement(new StreamRecord<>(event("a", 10), 10));

            assertThat(h.extractOutputValues()).extracting(e -> e.id).containsExactly("a", "b");
            assertThat(h.numKeyedStateEntries()).isEqualTo(2);
            assertThat(h.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void shouldPassLateEventsOnInsteadOfDroppingThem() throws Exception {
        try (var h = harness()) {
            h.processWatermark(1_000);
            h.processElement(new StreamRecord<>(event("late", 5), 5));

            assertThat(h.extractOutputValues()).extracting(e -> e.id).containsExactly("late");
        }
    }

    @Test
    void shouldRememberIdsAcrossRestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.processElement(new StreamRecord<>(event("a", 10), 10));
            snapshot = h.snapshot(1L, 1L);
        }
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(Deduplicator.forLake(Duration.ofHours(1))),
                        (Event e) -> DuplicateRule.unit(e),
                        Types.STRING)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(event("a", 10), 10));
            h.processElement(new StreamRecord<>(event("c", 12), 12));

            assertThat(h.extractOutputValues()).extracting(e -> e.id).containsExactly("c");
        }
    }

    /**
     * A savepoint from before the de-duplication key had its own serializer (keys typed as Flink's
     * string) restores into the job as it is keyed now ({@link StateKeyTypeInfo}), and the new
     * layout restores into itself: the remembered ids still stop their repeats.
     */
    @Test
    void shouldRestoreIdsRememberedUnderTheOldAndTheNewKeySerializer() throws Exception {
        OperatorSubtaskState old;
        try (var h = harness()) {
            h.processElement(new StreamRecord<>(event("ä-1", 10), 10));
            h.processElement(new StreamRecord<>(event("b", 11), 11));
            old = h.snapshot(1L, 1L);
        }
        OperatorSubtaskState current;
        try (var h = keyedAsNow()) {
            h.initializeState(old);
            h.open();
            h.processElement(new StreamRecord<>(event("ä-1", 10), 10));
            h.processElement(new StreamRecord<>(event("b", 11), 11));
            h.processElement(new StreamRecord<>(event("c", 12), 12));
            assertThat(h.extractOutputValues()).extracting(e -> e.id).containsExactly("c");
            current = h.snapshot(2L, 2L);
        }
        try (var h = keyedAsNow()) {
            h.initializeState(current);
            h.open();
            h.processElement(new StreamRecord<>(event("ä-1", 10), 10));
            h.processElement(new StreamRecord<>(event("c", 12), 12));
            h.processElement(new StreamRecord<>(event("d", 13), 13));
            assertThat(h.extractOutputValues()).extracting(e -> e.id).containsExactly("d");
            assertThat(h.numKeyedStateEntries()).isEqualTo(4);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Event, Event> keyedAsNow()
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(Deduplicator.forLake(Duration.ofHours(1))),
                (Event e) -> DuplicateRule.unit(e),
                StateKeyTypeInfo.INSTANCE);
    }

    @Test
    void copiesInDifferentHoursAreDifferentRows() throws Exception {
        try (var h = harness()) {
            h.processElement(new StreamRecord<>(event("a", HOUR - 1), HOUR - 1));
            h.processElement(new StreamRecord<>(event("a", HOUR), HOUR));

            assertThat(h.extractOutputValues())
                    .extracting(e -> e.eventTime)
                    .containsExactly(HOUR - 1, HOUR);
        }
    }

    /** Pairs of conflicting copies of one id in one hour, the rule's winner first. */
    private static List<Event[]> conflicts() {
        Event early = event("x", "u-1", 5 * HOUR + 100, 1);
        Event later = event("x", "u-1", 5 * HOUR + 200, 2);
        // Same time, different payloads: the smaller digest wins.
        Event p = event("y", "u-2", 5 * HOUR + 300, 3);
        Event q = event("y", "u-2", 5 * HOUR + 300, 4);
        Event[] tie = DuplicateRule.compare(p, q) < 0 ? new Event[] {p, q} : new Event[] {q, p};
        // Different entity keys: the retraction must name the superseded copy's key.
        Event keyed = event("z", "u-3", 5 * HOUR + 400, 5);
        Event otherKey = event("z", "u-4", 5 * HOUR + 500, 6);
        return List.of(new Event[] {early, later}, tie, new Event[] {keyed, otherKey});
    }

    /** Both copies in the given order, then the winner again (a retry); what is passed on. */
    private static List<Event> feed(
            Deduplicator dedup, Event winner, Event loser, boolean winnerFirst) throws Exception {
        try (var h = harness(dedup)) {
            Event first = winnerFirst ? winner : loser;
            Event second = winnerFirst ? loser : winner;
            h.processElement(new StreamRecord<>(first, first.eventTime));
            h.processElement(new StreamRecord<>(second, second.eventTime));
            h.processElement(new StreamRecord<>(winner, winner.eventTime));
            return h.extractOutputValues();
        }
    }

    /**
     * The lake mode: the winner is passed on in both orders; arriving second it follows the loser
     * (raw then holds both and compaction keeps the winner); arriving first, the loser is dropped.
     * Either way the rule over what was passed on gives the same winner.
     */
    @Test
    void lakeModeGivesTheSameWinnerInBothOrders() throws Exception {
        for (Event[] pair : conflicts()) {
            Event winner = pair[0];
            Event loser = pair[1];
            for (boolean winnerFirst : new boolean[] {true, false}) {
                Deduplicator dedup = Deduplicator.forLake(Duration.ofHours(1));
                List<Event> out = feed(dedup, winner, loser, winnerFirst);
                assertThat(out).noneMatch(e -> e.retraction);
                assertThat(out)
                        .as("winner first: %s", winnerFirst)
                        .containsExactlyElementsOf(
                                winnerFirst ? List.of(winner) : List.of(loser, winner));
                assertThat(out.stream().min(DuplicateRule::compare)).contains(winner);
                assertThat(dedup.conflictCount()).isEqualTo(1);
                assertThat(dedup.duplicateCount()).isEqualTo(1);
            }
        }
    }

    /**
     * The features mode: whatever the order, applying the output (an event adds its copy, a
     * retraction removes the copy with its id, key and time) leaves exactly the winner.
     */
    @Test
    void retractingModeLeavesTheWinnerInBothOrders() throws Exception {
        for (Event[] pair : conflicts()) {
            Event winner = pair[0];
            Event loser = pair[1];
            for (boolean winnerFirst : new boolean[] {true, false}) {
                Deduplicator dedup = Deduplicator.withRetractions(Duration.ofHours(1));
                List<Event> out = feed(dedup, winner, loser, winnerFirst);
                if (winnerFirst) {
                    assertThat(out).containsExactly(winner);
                } else {
                    assertThat(out)
                            .containsExactly(
                                    loser,
                                    Event.retraction(loser.id, loser.key, loser.eventTime),
                                    winner);
                }
                assertThat(applied(out)).containsExactly(winner);
                assertThat(dedup.conflictCount()).isEqualTo(1);
                assertThat(dedup.duplicateCount()).isEqualTo(1);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void keptCopySurvivesRestoreInBothModes(boolean retracting) throws Exception {
        Event winner = event("x", "u-1", 100, 1);
        Event loser = event("x", "u-1", 200, 2);
        OperatorSubtaskState snapshot;
        try (var h =
                harness(
                        retracting
                                ? Deduplicator.withRetractions(Duration.ofHours(1))
                                : Deduplicator.forLake(Duration.ofHours(1)))) {
            h.processElement(new StreamRecord<>(loser, 200));
            snapshot = h.snapshot(1L, 1L);
        }
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(
                                retracting
                                        ? Deduplicator.withRetractions(Duration.ofHours(1))
                                        : Deduplicator.forLake(Duration.ofHours(1))),
                        (Event e) -> DuplicateRule.unit(e),
                        Types.STRING)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(loser, 200));
            h.processElement(new StreamRecord<>(winner, 100));

            assertThat(h.extractOutputValues())
                    .containsExactlyElementsOf(
                            retracting
                                    ? List.of(Event.retraction("x", "u-1", 200), winner)
                                    : List.of(winner));
        }
    }

    /** The copies left after applying additions and retractions in order, by (id, key, time). */
    private static List<Event> applied(List<Event> out) {
        Map<String, Event> live = new LinkedHashMap<>();
        for (Event e : out) {
            String k = e.id + "/" + e.key + "/" + e.eventTime;
            if (e.retraction) {
                assertThat(live.remove(k)).as("retracted %s was live", e).isNotNull();
            } else {
                assertThat(live.put(k, e)).as("%s added twice", e).isNull();
            }
        }
        return new ArrayList<>(live.values());
    }
}
