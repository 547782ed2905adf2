package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.testing.SameValue;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The one contract every online store passes, run against real Redis and a real SQLite file: tiles
 * written are read back as the shared library computes them, compare-and-set never moves a value
 * back, expired tiles are gone, and unknown entities read as empty windows.
 */
abstract class OnlineStoreContract {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;

    /** A fresh store for one test. */
    abstract OnlineStore open() throws Exception;

    private OnlineStore store;
    private ViewDef view;
    private final long now = System.currentTimeMillis();

    /** Entities are unique per test, so tests sharing a Redis never see each other's keys. */
    private final String prefix = UUID.randomUUID().toString().substring(0, 8) + "-";

    @BeforeEach
    void openStore() throws Exception {
        store = open();
        SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
        view =
                ViewDef.of(
                        config.featureViews().stream()
                                .filter(v -> v.name().equals("user_purchases"))
                                .findFirst()
                                .orElseThrow(),
                        config.table("purchases").orElseThrow());
    }

    @AfterEach
    void closeStore() throws Exception {
        store.close();
    }

    @Test
    void clearsOneViewAndKeepsTheOthers() throws Exception {
        String cleared = prefix + "view*[a]";
        String kept = prefix + "view";
        assertThat(store.hasTiles(cleared)).isFalse();
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        for (String v : List.of(cleared, kept)) {
            for (int i = 0; i < 3; i++) {
                writes.add(
                        new OnlineStore.TileWrite(
                                new OnlineStore.TileKey(
                                        v, "e" + i, OnlineStore.Level.FINE, i * MINUTE),
                                1,
                                new byte[] {1},
                                now + HOUR));
            }
        }
        store.write(writes);
        assertThat(store.hasTiles(cleared)).isTrue();

        assertThat(store.clear(cleared)).isEqualTo(3);

        assertThat(store.hasTiles(cleared)).isFalse();
        assertThat(store.hasTiles(kept))
                .as("a view whose name the first one's pattern matches")
                .isTrue();
        assertThat(store.read(List.of(writes.get(3).key()), now)).hasSize(1);
    }

    @Test
    void readsEveryFeatureAsTheLibraryComputesIt() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        Map<String, EntityTiles> entities = new LinkedHashMap<>();
        for (int i = 0; i < 400; i++) {
            String entity = prefix + "user-" + random.nextInt(5);
            // Events over the last 30 hours, so 24h windows span coarse and fine tiles.
            long ts = now - random.nextLong(30 * HOUR);
            EventEntry e =
                    new EventEntry(
                            ts,
                            "e" + i,
                            new Object[] {
                                random.nextDouble() * 50,
                                List.of("shoes", "toys", "books").get(random.nextInt(3)),
                                random.nextInt(3) == 0 ? "card" : "paypal"
                            });
            entities.computeIfAbsent(
                            entity, k -> new EntityTiles(view.tileMillis(), view.coarseMillis()))
                    .add(e);
        }
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        entities.forEach(
                (entity, tiles) ->
                        writes.addAll(TileWrites.of(view, entity, tiles, tiles.tiles().keySet())));
        assertThat(store.write(writes)).isEqualTo(writes.size());

        FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
        List<FeatureReader.FeatureRef> refs = new ArrayList<>();
        for (FeatureDef f : view.features()) {
            refs.add(new FeatureReader.FeatureRef(view.name(), f.name()));
        }
        List<String> asked = new ArrayList<>(entities.keySet());
        asked.add(prefix + "nobody");
        for (int q = 0; q < 20; q++) {
            long at = now - random.nextLong(26 * HOUR);
            List<FeatureReader.Vector> vectors = reader.read(refs, asked, at);
            assertThat(vectors).extracting(FeatureReader.Vector::entity).isEqualTo(asked);
            for (FeatureReader.Vector v : vectors) {
                EntityTiles expected =
                        entities.getOrDefault(
                                v.entity(),
                                new EntityTiles(view.tileMillis(), view.coarseMillis()));
                for (int i = 0; i < view.features().size(); i++) {
                    FeatureDef f = view.features().get(i);
                    FeatureValue want = expected.value(f, at);
                    FeatureValue got = v.values().get(i);
                    String what = f.name() + " of " + v.entity() + " at " + at;
                    SameValue.assertSame(what, want, got);
                }
            }
        }
    }

    @Test
    void olderVersionsNeverOverwriteNewerOnes() throws Exception {
        OnlineStore.TileKey key = key("user-cas", 0);
        Tile big = tile(5);
        Tile small = tile(3);
        assertThat(store.write(List.of(write(key, big)))).isEqualTo(1);
        assertThat(store.write(List.of(write(key, small)))).isZero();
        assertThat(TileCodec.decodeFine(key.start(), store.read(List.of(key), now).get(key)).size())
                .isEqualTo(5);
        // The same version again is accepted (a replay of the very same write).
        assertThat(store.write(List.of(write(key, big)))).isEqualTo(1);
    }

    @Test
    void expiredTilesAreGone() throws Exception {
        OnlineStore.TileKey live = key("user-live", 0);
        OnlineStore.TileKey dead = key("user-dead", 0);
        store.write(
                List.of(
                        new OnlineStore.TileWrite(
                                live, 1, TileCodec.encodeFine(tile(1)), now + HOUR),
                        new OnlineStore.TileWrite(
                                dead, 1, TileCodec.encodeFine(tile(1)), now - 1)));
        assertThat(store.read(List.of(live, dead), now)).containsOnlyKeys(live);
    }

    @Test
    void unknownEntitiesReadAsEmptyWindowsAndOldTimesAsOutOfRetention() throws Exception {
        FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
        List<FeatureReader.FeatureRef> refs =
                List.of(
                        FeatureReader.FeatureRef.parse("user_purchases:purchases_1h"),
                        FeatureReader.FeatureRef.parse("user_purchases:max_price_24h"));
        List<FeatureValue> values =
                reader.read(refs, List.of(prefix + "ghost"), now).get(0).values();
        assertThat(values.get(0)).isEqualTo(new FeatureValue(0L, Status.OK, -1));
        assertThat(values.get(1)).isEqualTo(new FeatureValue(null, Status.EMPTY_WINDOW, -1));
        long tooOld = now - view.ttlMillis() - 1;
        assertThat(reader.read(refs, List.of(prefix + "ghost"), tooOld).get(0).values())
                .extracting(FeatureValue::status)
                .containsOnly(Status.OUT_OF_RETENTION);
        assertThatThrownBy(
                        () ->
                                reader.read(
                                        List.of(
                                                FeatureReader.FeatureRef.parse(
                                                        "user_purchases:nope")),
                                        List.of("x"),
                                        now))
                .hasMessageContaining("no feature 'nope'");
    }

    private OnlineStore.TileKey key(String entity, long offset) {
        return new OnlineStore.TileKey(
                view.name(),
                prefix + entity,
                OnlineStore.Level.FINE,
                Windows.floor(now, view.tileMillis()) + offset);
    }

    private Tile tile(int events) {
        Tile t = new Tile(Windows.floor(now, view.tileMillis()));
        for (int i = 0; i < events; i++) {
            t.add(new EventEntry(t.start() + i, "id-" + i, new Object[] {1.0, "c", "card"}));
        }
        return t;
    }

    private OnlineStore.TileWrite write(OnlineStore.TileKey key, Tile tile) {
        return new OnlineStore.TileWrite(key, tile.size(), TileCodec.encodeFine(tile), now + HOUR);
    }
}
