package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.OnlineStore.Found;
import io.sluice.features.online.OnlineStore.RangeRead;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read client fetches exactly the tiles that {@link Windows#value} then reads, and the tiles of
 * the view's retention only for entities those do not show known.
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
                    Windows.value(
                            f,
                            at,
                            view.tileMillis(),
                            view.coarseMillis(),
                            recording(view, entity, read));
                }
                Windows.present(view, at, recording(view, entity, retention));
            }
            // The store is empty, so the windows' tiles show neither entity known: a second read
            // asks for their retention's tiles.
            assertThat(calls).as("at=%d", at).hasSize(2);
            assertThat(keys(calls.get(0))).as("at=%d", at).isEqualTo(read);
            assertThat(keys(calls.get(1))).as("at=%d", at).isEqualTo(retention);
        }
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
        OnlineStore real = new SqliteOnlineStore(dir.resolve("online.db"));
        return new OnlineStore() {
            @Override
            public int write(List<TileWrite> writes) throws java.io.IOException {
                return real.write(writes);
            }

            @Override
            public List<Found> read(List<RangeRead> reads, long now) throws java.io.IOException {
                calls.add(reads);
                return real.read(reads, now);
            }

            @Override
            public boolean hasTiles(String view) throws java.io.IOException {
                return real.hasTiles(view);
            }

            @Override
            public long clear(String view) throws java.io.IOException {
                return real.clear(view);
            }

            @Override
            public void close() throws java.io.IOException {
                real.close();
            }
        };
    }
}
