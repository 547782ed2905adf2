package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.OnlineStore.Found;
import io.sluice.features.online.OnlineStore.RangeRead;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.ForwardingOnlineStore;
import io.sluice.features.testing.SameValue;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read client fetches exactly the tiles that {@link WindowReads#value} then reads, and the
 * tiles of the view's retention only for entities those do not show known.
 */
class FeatureReaderTest {

    private static final long MINUTE = 60_000;
    private static final long NOW = 1_700_000_000_000L;

    @TempDir Path dir;

    @Test
    void shouldFetchExactlyTheTilesTheWindowsRead() throws Exception {
        SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
        List<ViewDef> views = FeatureRefs.views(config);
        ViewDef view =
                views.stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow();
        List<FeatureReader.FeatureRef> refs = new ArrayList<>();
        view.features().forEach(f -> refs.add(new FeatureReader.FeatureRef(view.name(), f.name())));
        for (long at : new long[] {NOW, NOW - NOW % MINUTE, NOW - 37 * MINUTE - 11}) {
            List<List<OnlineStore.RangeRead>> calls = new ArrayList<>();
            try (OnlineStore store = recordingStore(calls)) {
                new FeatureReader(store, views, () -> NOW).read(refs, List.of("u1", "u2"), at);
            }

            Set<OnlineStore.TileKey> read = new LinkedHashSet<>();
            Set<OnlineStore.TileKey> retention = new LinkedHashSet<>();
            for (String entity : List.of("u1", "u2")) {
                for (FeatureDef f : view.features()) {
                    WindowReads.value(
                            f,
                            at,
                            view.tileMillis(),
                            view.coarseMillis(),
                            recording(view, entity, read));
                }
                WindowReads.present(view, at, recording(view, entity, retention));
            }
            // The store is empty, so the windows' tiles show neither entity known: a second read
            // asks for their retention's tiles.
            assertThat(calls).as("at=%d", at).hasSize(2);
            assertThat(keys(calls.get(0))).as("at=%d", at).isEqualTo(read);
            assertThat(keys(calls.get(1))).as("at=%d", at).isEqualTo(retention);
        }
    }

    /**
     * An {@code at} between whole milliseconds (an ISO instant with micro- or nanoseconds) is read
     * at its own precision, as the training-set builder reads a spine row at the same time: equal
     * to the definition on both sides of tile, hour, window and retention edges.
     */
    @Test
    void shouldReadASubMillisecondAtAsTheDefinitionDoes() throws Exception {
        SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
        ViewDef view =
                FeatureRefs.views(config).stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow();
        long hour = 60 * MINUTE;
        long tileEdge = Windows.floor(NOW, hour) - 3 * hour + 17 * MINUTE;
        long hourEdge = Windows.floor(NOW, hour) - hour;
        long now = NOW;
        // Per edge E, events at E − W − 1min, E − W − 1ms, E − 1min, E − 1ms, E and E + 1ms for
        // the views' windows W (1h, 24h, 7d = the ttl); and an entity known only by an event at E
        // − ttl − 1ms.
        Map<String, List<EventEntry>> events = new LinkedHashMap<>();
        long[] windows = {0, hour, 24 * hour, view.ttlMillis()};
        for (long edge : new long[] {tileEdge, hourEdge}) {
            List<EventEntry> own = new ArrayList<>();
            for (long w : windows) {
                for (long offset : new long[] {-w - MINUTE, -w - 1, -w}) {
                    own.add(event(edge + offset, own.size()));
                }
            }
            own.add(event(edge + 1, own.size()));
            events.put("edge-" + edge, own);
            events.put("lonely-" + edge, List.of(event(edge - view.ttlMillis() - 1, 0)));
        }
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        events.forEach(
                (entity, list) -> {
                    EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
                    list.forEach(tiles::add);
                    writes.addAll(TileWrites.of(view, entity, tiles, tiles.tiles().keySet()));
                });
        List<FeatureReader.FeatureRef> refs = new ArrayList<>();
        view.features().forEach(f -> refs.add(new FeatureReader.FeatureRef(view.name(), f.name())));
        List<String> entities = new ArrayList<>(events.keySet());
        entities.add("nobody");
        long ms = 1_000_000;
        int roundedWrong = 0;
        try (OnlineStore store = new SqliteOnlineStore(dir.resolve("submilli.db"))) {
            store.write(writes);
            FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
            for (long edge : new long[] {tileEdge, hourEdge}) {
                long e = edge * ms;
                for (long t :
                        new long[] {
                            e - 591_000,
                            e - 1,
                            e,
                            e + 1,
                            e + 1_000,
                            e - ms - 1,
                            e - ms + 1,
                            e - ms + 591_000
                        }) {
                    Instant at = Instant.ofEpochSecond(0, t);
                    List<FeatureReader.Vector> got = reader.read(refs, entities, at);
                    List<FeatureReader.Vector> truncated =
                            reader.read(refs, entities, at.toEpochMilli());
                    for (int v = 0; v < entities.size(); v++) {
                        List<EventEntry> own = events.getOrDefault(entities.get(v), List.of());
                        for (int i = 0; i < refs.size(); i++) {
                            FeatureDef f = view.features().get(i);
                            FeatureValue want = Definition.valueAtNanos(view, f, t, own);
                            String what = f.name() + " of " + entities.get(v) + " at " + at;
                            SameValue.assertSame(what, want, got.get(v).values().get(i));
                            if (!want.equals(truncated.get(v).values().get(i))) {
                                roundedWrong++;
                            }
                        }
                    }
                }
            }
            // A microsecond after an event it counts, where the read truncated to that event's
            // millisecond (as `at` was parsed before) misses it.
            assertThat(roundedWrong).isPositive();
            List<FeatureReader.FeatureRef> count = List.of(refs.get(0));
            assertThat(count.get(0).feature()).isEqualTo("purchases_1h");
            List<String> one = List.of("edge-" + tileEdge);
            long want =
                    (Long)
                            Definition.valueAtNanos(
                                            view.feature("purchases_1h"),
                                            MINUTE,
                                            (tileEdge - 1) * ms + 1_000,
                                            events.get(one.get(0)))
                                    .value();
            Instant afterEvent = Instant.ofEpochMilli(tileEdge - 1).plusNanos(1_000);
            assertThat(reader.read(count, one, afterEvent).get(0).values().get(0).value())
                    .isEqualTo(want);
            assertThat(reader.read(count, one, tileEdge - 1).get(0).values().get(0).value())
                    .isEqualTo(want - 1);
            // A microsecond after now is the future.
            assertThatThrownBy(
                            () ->
                                    reader.read(
                                            refs,
                                            entities,
                                            Instant.ofEpochMilli(now).plusNanos(1_000)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("later than now");
        }
    }

    private static EventEntry event(long ts, int i) {
        return new EventEntry(ts, "e" + ts + "-" + i, new Object[] {10.0 + i, "c" + i, "card"});
    }

    /** The tiles that range reads name, each once. */
    private static Set<OnlineStore.TileKey> keys(List<OnlineStore.RangeRead> reads) {
        Set<OnlineStore.TileKey> keys = new LinkedHashSet<>();
        for (OnlineStore.RangeRead r : reads) {
            for (OnlineStore.TileRange range : r.ranges()) {
                for (long s = range.from(); s < range.to(); s += range.step()) {
                    assertThat(
                                    keys.add(
                                            new OnlineStore.TileKey(
                                                    r.view(), r.entity(), range.level(), s)))
                            .as("asked once: %s", s)
                            .isTrue();
                }
            }
        }
        return keys;
    }

    private static Windows.TileReader recording(
            ViewDef view, String entity, Set<OnlineStore.TileKey> read) {
        return new Windows.TileReader() {
            @Override
            public Partial fine(long start, FeatureDef feature) {
                read.add(key(OnlineStore.Level.FINE, start));
                return new Partial();
            }

            @Override
            public Partial coarse(long start, FeatureDef feature) {
                read.add(key(OnlineStore.Level.COARSE, start));
                return new Partial();
            }

            @Override
            public Partial mid(long start, FeatureDef feature) {
                read.add(key(OnlineStore.Level.MID, start));
                return new Partial();
            }

            @Override
            public Partial head(long start, long before, FeatureDef feature) {
                read.add(key(OnlineStore.Level.FINE, start));
                return new Partial();
            }

            private OnlineStore.TileKey key(OnlineStore.Level level, long start) {
                return new OnlineStore.TileKey(view.name(), entity, level, start);
            }
        };
    }

    /** A real SQLite store that also records what each read asks for. */
    private OnlineStore recordingStore(List<List<RangeRead>> calls) throws Exception {
        return new ForwardingOnlineStore(new SqliteOnlineStore(dir.resolve("online.db"))) {
            @Override
            public List<Found> read(List<RangeRead> reads, long now) throws java.io.IOException {
                calls.add(reads);
                return super.read(reads, now);
            }
        };
    }
}
