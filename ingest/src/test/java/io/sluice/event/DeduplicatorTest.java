package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class DeduplicatorTest {

    private static KeyedOneInputStreamOperatorTestHarness<String, Event, Event> harness()
            throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new Deduplicator(Duration.ofHours(1))),
                        (Event e) -> e.id,
                        Types.STRING);
        h.open();
        return h;
    }

    private static Event event(String id, long time) {
        return new Event(id, "u-1", time, new byte[] {1, 2, 3});
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
                        new KeyedProcessOperator<>(new Deduplicator(Duration.ofHours(1))),
                        (Event e) -> e.id,
                        Types.STRING)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(event("a", 10), 10));
            h.processElement(new StreamRecord<>(event("c", 12), 12));

            assertThat(h.extractOutputValues()).extracting(e -> e.id).containsExactly("c");
        }
    }
}
