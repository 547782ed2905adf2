package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.Event;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.TileWrites;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestConfigs;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tile aggregator on Flink's operator harness: what it publishes, late and too-late events,
 * eviction with its state and timers drained, and retractions.
 */
class TileAggregatorTest {

    private static final long T0 = 1_700_000_000_000L / 3_600_000L * 3_600_000L;

    @TempDir Path root;

    /**
     * A superseded copy retracted and its winner added leaves the same tiles as the winner alone,
     * and every re-published tile has a higher version than before.
     *
     * @param sameTile whether the winner falls in the loser's fine tile (else in another fine tile
     *     of the same coarse tile)
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void retractThenAddEqualsTheWinnerAlone(boolean sameTile) throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        TableConfig table = config.table("purchases").orElseThrow();
        ViewDef view = purchases(config, table);
        Event other = event(table, "other", T0 + 10_000, 5.0f);
        Event loser = event(table, "dup", T0 + 20_000, 7.0f);
        Event winner = event(table, "dup", T0 + (sameTile ? 15_000 : 125_000), 3.0f);

        Map<OnlineStore.TileKey, TileUpdate> withRetraction;
        Map<OnlineStore.TileKey, Long> versionsBefore = new HashMap<>();
        try (var h = harness(view, table)) {
            h.processElement(new StreamRecord<>(other, other.eventTime));
            h.processElement(new StreamRecord<>(loser, loser.eventTime));
            h.setProcessingTime(1_000);
            latest(h.extractOutputValues()).forEach((k, u) -> versionsBefore.put(k, u.version));
            h.getOutput().clear();

            h.processElement(
                    new StreamRecord<>(
                            Event.retraction(loser.id, loser.key, loser.eventTime),
                            loser.eventTime));
            h.processElement(new StreamRecord<>(winner, winner.eventTime));
            h.setProcessingTime(2_000);
            List<TileUpdate> republished = h.extractOutputValues();
            withRetraction = latest(republished);
            versionsBefore.forEach(
                    (k, v) ->
                            assertThat(withRetraction.get(k).version)
                                    .as("version of %s after the retraction", k)
                                    .isGreaterThan(v));
        }
        Map<OnlineStore.TileKey, TileUpdate> winnerAlone;
        try (var h = harness(view, table)) {
            h.processElement(new StreamRecord<>(other, other.eventTime));
            h.processElement(new StreamRecord<>(winner, winner.eventTime));
            h.setProcessingTime(1_000);
            winnerAlone = latest(h.extractOutputValues());
        }

        assertThat(withRetraction.keySet()).containsAll(winnerAlone.keySet());
        for (var e : withRetraction.entrySet()) {
            OnlineStore.TileKey k = e.getKey();
            TileUpdate got = e.getValue();
            TileUpdate want = winnerAlone.get(k);
            if (k.level() == OnlineStore.Level.FINE) {
                byte[] expected =
                        want == null
                                ? TileCodec.encodeFine(new io.sluice.features.agg.Tile(k.start()))
                                : want.payload;
                assertThat(got.payload).as("fine tile %s", k).isEqualTo(expected);
            } else {
                Map<String, Partial> gotPartials = TileCodec.decodeCoarse(got.payload);
                Map<String, Partial> wantPartials = TileCodec.decodeCoarse(want.payload);
                for (FeatureDef f : view.features()) {
                    assertThat(gotPartials.get(f.partialKey()).value(f))
                            .as("coarse %s of %s", f.name(), k)
                            .isEqualTo(wantPartials.get(f.partialKey()).value(f));
                }
            }
        }
    }

    /**
     * A retraction in a tile that was logged already logs the tile again, like a late event, with
     * fewer events and a greater version.
     */
    @org.junit.jupiter.api.Test
    void retractionInALoggedTileLogsItAgainWithAGreaterVersion() throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        TableConfig table = config.table("purchases").orElseThrow();
        ViewDef view = purchases(config, table);
        var tag = io.sluice.features.log.FeatureLog.tag(view);
        Event other = event(table, "other", T0 + 10_000, 5.0f);
        Event loser = event(table, "dup", T0 + 20_000, 7.0f);
        try (var h = harness(view, table, tag)) {
            h.processElement(new StreamRecord<>(other, other.eventTime));
            h.processElement(new StreamRecord<>(loser, loser.eventTime));
            h.processWatermark(T0 + view.tileMillis()); // the tile's end: it is logged
            h.processElement(
                    new StreamRecord<>(
                            Event.retraction(loser.id, loser.key, loser.eventTime),
                            loser.eventTime));
            // Applied, with the events before it, when the changed tiles are published.
            h.setProcessingTime(TileAggregator.PUBLISH_DELAY_MILLIS);

            List<GenericRecord> rows = new java.util.ArrayList<>();
            h.getSideOutput(tag).forEach(r -> rows.add(r.getValue()));
            assertThat(rows)
                    .extracting(r -> r.get("events") + "@" + r.get("version"))
                    .containsExactly("2@2", "1@3");
        }
    }

    /**
     * Publishes each changed fine tile and its mid and coarse tiles once per publish delay; a late
     * event in a retained tile updates, re-publishes and re-logs it; an event whose tile has
     * expired changes nothing; and once the watermark passes every tile's expiry, no keyed state or
     * event-time timer is left.
     */
    @org.junit.jupiter.api.Test
    void shouldPublishHandleLateEventsAndDrainStateAndTimersAtExpiry() throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        TableConfig table = config.table("purchases").orElseThrow();
        ViewDef view = purchases(config, table);
        long minute = view.tileMillis();
        FeatureDef count = view.feature("purchases_1h");
        var tag = io.sluice.features.log.FeatureLog.tag(view);
        try (var h = harness(view, table, tag)) {
            Event first = event(table, "a", T0 + 10_000, 5.0f);
            Event second = event(table, "b", T0 + minute + 5_000, 2.0f);
            h.processElement(new StreamRecord<>(first, first.eventTime));
            h.processElement(new StreamRecord<>(second, second.eventTime));
            assertThat(h.extractOutputValues()).as("nothing before the publish delay").isEmpty();
            // Per fine tile its end and its expiry, the mid and coarse tiles' expiries, and the
            // publish at the next watermark.
            assertThat(h.numEventTimeTimers()).isEqualTo(7);

            h.setProcessingTime(TileAggregator.PUBLISH_DELAY_MILLIS);
            Map<OnlineStore.TileKey, TileUpdate> published = latest(h.extractOutputValues());
            assertThat(h.extractOutputValues()).hasSize(4);
            assertThat(published.keySet())
                    .containsExactlyInAnyOrder(
                            key(view, OnlineStore.Level.FINE, T0),
                            key(view, OnlineStore.Level.FINE, T0 + minute),
                            key(view, OnlineStore.Level.MID, T0),
                            key(view, OnlineStore.Level.COARSE, T0));
            TileUpdate mid = published.get(key(view, OnlineStore.Level.MID, T0));
            assertThat(mid.expireAt).isEqualTo(T0 + view.midMillis() + 2 * view.ttlMillis());
            assertThat(countIn(mid, count)).isEqualTo(2L);
            TileUpdate coarse = published.get(key(view, OnlineStore.Level.COARSE, T0));
            assertThat(coarse.expireAt).isEqualTo(T0 + view.coarseMillis() + 2 * view.ttlMillis());
            assertThat(coarse.newestEventTime).isEqualTo(second.eventTime);
            assertThat(countIn(coarse, count)).isEqualTo(2L);
            h.getOutput().clear();

            // Both fine tiles end: each is logged once.
            h.processWatermark(T0 + 2 * minute);
            Event late = event(table, "late", T0 + 20_000, 1.0f);
            h.processElement(new StreamRecord<>(late, late.eventTime));
            h.setProcessingTime(2 * TileAggregator.PUBLISH_DELAY_MILLIS);
            Map<OnlineStore.TileKey, TileUpdate> republished = latest(h.extractOutputValues());
            assertThat(republished.keySet())
                    .containsExactlyInAnyOrder(
                            key(view, OnlineStore.Level.FINE, T0),
                            key(view, OnlineStore.Level.MID, T0),
                            key(view, OnlineStore.Level.COARSE, T0));
            assertThat(republished.get(key(view, OnlineStore.Level.FINE, T0)).version).isEqualTo(2);
            TileUpdate midAgain = republished.get(key(view, OnlineStore.Level.MID, T0));
            assertThat(midAgain.version).isEqualTo(3);
            assertThat(countIn(midAgain, count)).isEqualTo(3L);
            TileUpdate coarseAgain = republished.get(key(view, OnlineStore.Level.COARSE, T0));
            assertThat(coarseAgain.version).isEqualTo(3);
            assertThat(countIn(coarseAgain, count)).isEqualTo(3L);
            List<String> logged = new java.util.ArrayList<>();
            h.getSideOutput(tag)
                    .forEach(
                            r ->
                                    logged.add(
                                            r.getValue().get("events")
                                                    + "@"
                                                    + r.getValue().get("version")));
            assertThat(logged).containsExactly("1@1", "1@1", "2@2");
            h.getOutput().clear();

            // The fine tiles expire (the mid and coarse ones are still retained): they are evicted.
            h.processWatermark(TileWrites.expiry(view, T0 + minute, minute));
            assertThat(h.numEventTimeTimers()).isEqualTo(2);
            Event tooLate = event(table, "too-late", T0 + 30_000, 9.0f);
            h.processElement(new StreamRecord<>(tooLate, tooLate.eventTime));
            h.setProcessingTime(3 * TileAggregator.PUBLISH_DELAY_MILLIS);
            assertThat(h.extractOutputValues()).as("an event beyond retention").isEmpty();

            h.processWatermark(TileWrites.expiry(view, T0, view.coarseMillis()));
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(h.numProcessingTimeTimers()).isZero();
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.extractOutputValues()).isEmpty();
        }
    }

    /**
     * A watermark leaves the aggregator only after every tile of the events before it, although
     * their publishing timer has not fired: the online sink marks the store written through the
     * watermarks it receives.
     */
    @org.junit.jupiter.api.Test
    void publishesWaitingTilesBeforePassingOnTheNextWatermark() throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        TableConfig table = config.table("purchases").orElseThrow();
        ViewDef view = purchases(config, table);
        Event first = event(table, "a", T0 + 10_000, 5.0f);
        Event second = event(table, "b", T0 + 20_000, 7.0f);
        try (var h = harness(view, table)) {
            h.processWatermark(T0);
            h.processElement(new StreamRecord<>(first, first.eventTime));
            h.processElement(new StreamRecord<>(second, second.eventTime));
            assertThat(h.getOutput()).as("waiting for the publishing timer").hasSize(1);

            h.processWatermark(T0 + 1);

            List<Object> out = new java.util.ArrayList<>(h.getOutput());
            assertThat(out)
                    .last()
                    .isEqualTo(new org.apache.flink.streaming.api.watermark.Watermark(T0 + 1));
            List<TileUpdate> before = new java.util.ArrayList<>();
            for (Object o : out.subList(0, out.size() - 1)) {
                if (o instanceof StreamRecord<?> r && r.getValue() instanceof TileUpdate u) {
                    before.add(u);
                }
            }
            TileUpdate fine = latest(before).get(key(view, OnlineStore.Level.FINE, T0));
            assertThat(fine).as("the fine tile, published ahead of the watermark").isNotNull();
            assertThat(TileCodec.decodeFine(T0, fine.payload).size()).isEqualTo(2);

            h.getOutput().clear();
            h.setProcessingTime(1_000);
            assertThat(h.extractOutputValues())
                    .as("the publishing timer finds nothing left")
                    .isEmpty();
        }
    }

    private static ViewDef purchases(SluiceConfig config, TableConfig table) {
        return ViewDef.of(
                config.featureViews().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow(),
                table);
    }

    private static OnlineStore.TileKey key(ViewDef view, OnlineStore.Level level, long start) {
        return new OnlineStore.TileKey(view.name(), "user-1", level, start);
    }

    private static Object countIn(TileUpdate coarse, FeatureDef count) {
        return TileCodec.decodeCoarse(coarse.payload).get(count.partialKey()).value(count).value();
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Event, TileUpdate> harness(
            ViewDef view, TableConfig table) throws Exception {
        return harness(view, table, null);
    }

    /** An opened harness; {@code log} is the feature log's side output, or null. */
    private static KeyedOneInputStreamOperatorTestHarness<String, Event, TileUpdate> harness(
            ViewDef view, TableConfig table, OutputTag<GenericRecord> log) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new TileAggregator(view, table.schema(), log)),
                        (Event e) -> e.key,
                        Types.STRING);
        h.open();
        return h;
    }

    /** The newest update of each tile, by version; asserts versions never repeat per tile. */
    private static Map<OnlineStore.TileKey, TileUpdate> latest(List<TileUpdate> updates) {
        Map<OnlineStore.TileKey, TileUpdate> latest = new HashMap<>();
        for (TileUpdate u : updates) {
            TileUpdate previous = latest.get(u.key());
            if (previous == null || previous.version < u.version) {
                latest.put(u.key(), u);
            }
        }
        return latest;
    }

    private static Event event(TableConfig table, String id, long time, float price)
            throws Exception {
        GenericRecord r =
                LandingEdits.purchase(table.schema(), id, time, "user-1", price, "IOS", "FR");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(table.schema()).write(r, encoder);
        return new Event(id, "user-1", time, out.toByteArray());
    }
}
