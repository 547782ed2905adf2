package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import io.sluice.features.testing.SameValue;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The one contract every online store passes, run against real Redis and a real SQLite file: tiles
 * written are read back as the shared library computes them, compare-and-set never moves a value
 * back, expired tiles are gone, unknown entities are not found, and a known one's empty windows
 * read as zeros and nulls.
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

    /** The view the contract writes: the shop config's {@code user_purchases}. */
    ViewDef view() {
        return view;
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
        assertThat(store.readTiles(List.of(writes.get(3).key()), now)).hasSize(1);
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
        // The asynchronous read (a server's) decodes on the executor it is given, each entity's
        // answer as it arrives.
        ExecutorService decoder = Executors.newSingleThreadExecutor();
        AtomicInteger decoded = new AtomicInteger();
        Executor counted =
                task -> {
                    decoded.incrementAndGet();
                    decoder.execute(task);
                };
        for (int q = 0; q < 20; q++) {
            long at = now - random.nextLong(26 * HOUR);
            List<FeatureReader.Vector> vectors = reader.read(refs, asked, at);
            assertThat(
                            reader.readAsync(refs, asked, Instant.ofEpochMilli(at), counted)
                                    .toCompletableFuture()
                                    .get(30, TimeUnit.SECONDS))
                    .as("read asynchronously at " + at)
                    .isEqualTo(vectors);
            assertThat(vectors).extracting(FeatureReader.Vector::entity).isEqualTo(asked);
            for (FeatureReader.Vector v : vectors) {
                EntityTiles expected =
                        entities.getOrDefault(
                                v.entity(),
                                new EntityTiles(view.tileMillis(), view.coarseMillis()));
                boolean known = WindowReads.present(view, at, expected);
                if (!entities.containsKey(v.entity())) {
                    assertThat(known).as(v.entity() + " is known").isFalse();
                }
                for (int i = 0; i < view.features().size(); i++) {
                    FeatureDef f = view.features().get(i);
                    FeatureValue want = known ? expected.value(f, at) : WindowReads.notFound();
                    FeatureValue got = v.values().get(i);
                    String what = f.name() + " of " + v.entity() + " at " + at;
                    SameValue.assertSame(what, want, got);
                }
            }
        }
        decoder.shutdown();
        assertThat(decoded.get())
                .as("answers taken on the executor given, one task per entity read")
                .isGreaterThanOrEqualTo(store.readsWithoutBlocking() ? 20 * asked.size() : 0)
                .isLessThanOrEqualTo(store.readsWithoutBlocking() ? Integer.MAX_VALUE : 0);
    }

    @Test
    void olderVersionsNeverOverwriteNewerOnes() throws Exception {
        OnlineStore.TileKey key = key("user-cas", 0);
        Tile big = tile(5);
        Tile small = tile(3);
        assertThat(store.write(List.of(write(key, big)))).isEqualTo(1);
        assertThat(store.write(List.of(write(key, small)))).isZero();
        assertThat(
                        TileCodec.decodeFine(
                                        key.start(), store.readTiles(List.of(key), now).get(key))
                                .size())
                .isEqualTo(5);
        // The same version again is accepted (a replay of the very same write).
        assertThat(store.write(List.of(write(key, big)))).isEqualTo(1);
    }

    @Test
    void aTileNamedTwiceInOneWriteKeepsItsNewerVersion() throws Exception {
        OnlineStore.TileKey newerFirst = key("user-twice-a", 0);
        OnlineStore.TileKey newerLast = key("user-twice-b", 0);
        // As two writes one after the other would: the older version loses either way.
        assertThat(store.write(List.of(write(newerFirst, tile(5)), write(newerFirst, tile(3)))))
                .isEqualTo(1);
        assertThat(store.write(List.of(write(newerLast, tile(3)), write(newerLast, tile(5)))))
                .isEqualTo(2);
        var stored = store.readTiles(List.of(newerFirst, newerLast), now);
        assertThat(TileCodec.decodeFine(newerFirst.start(), stored.get(newerFirst)).size())
                .isEqualTo(5);
        assertThat(TileCodec.decodeFine(newerLast.start(), stored.get(newerLast)).size())
                .isEqualTo(5);
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
        assertThat(store.readTiles(List.of(live, dead), now)).containsOnlyKeys(live);
    }

    @Test
    void unknownEntitiesAreNotFoundAndOldTimesOutOfRetention() throws Exception {
        FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
        List<FeatureReader.FeatureRef> refs =
                List.of(
                        FeatureReader.FeatureRef.parse("user_purchases:purchases_1h"),
                        FeatureReader.FeatureRef.parse("user_purchases:max_price_24h"));
        List<FeatureValue> values =
                reader.read(refs, List.of(prefix + "ghost"), now).get(0).values();
        assertThat(values).containsOnly(WindowReads.notFound());
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

    @Test
    void anEntityIsKnownWhenItHasAnEventInRetentionBeforeTheTimeAsked() throws Exception {
        long day = 24 * HOUR;
        Map<String, Long> events =
                Map.of("quiet", now - 3 * day, "later", now - HOUR, "old", now - 8 * day);
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        events.forEach(
                (entity, ts) -> {
                    EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
                    tiles.add(new EventEntry(ts, entity, new Object[] {2.5, "toys", "card"}));
                    writes.addAll(
                            TileWrites.of(view, prefix + entity, tiles, tiles.tiles().keySet()));
                });
        store.write(writes);
        FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
        List<FeatureReader.FeatureRef> refs =
                List.of(
                        FeatureReader.FeatureRef.parse("user_purchases:purchases_1h"),
                        FeatureReader.FeatureRef.parse("user_purchases:max_price_24h"));

        // Known only through its retention: its windows hold nothing, so the reader looks further.
        assertThat(reader.read(refs, List.of(prefix + "quiet"), now).get(0).values())
                .containsExactly(
                        new FeatureValue(0L, Status.OK, -1),
                        new FeatureValue(null, Status.EMPTY_WINDOW, -1));
        // Not yet known before its first event, known after it.
        assertThat(reader.read(refs, List.of(prefix + "later"), now - 2 * HOUR).get(0).values())
                .containsOnly(WindowReads.notFound());
        assertThat(reader.read(refs, List.of(prefix + "later"), now).get(0).values().get(0))
                .isEqualTo(new FeatureValue(1L, Status.OK, events.get("later")));
        // Its tile is still stored, but its event left the retention of now: forgotten.
        assertThat(reader.read(refs, List.of(prefix + "old"), now).get(0).values())
                .containsOnly(WindowReads.notFound());
        assertThat(reader.read(refs, List.of(prefix + "old"), now - 2 * day).get(0).values())
                .containsExactly(
                        new FeatureValue(0L, Status.OK, -1),
                        new FeatureValue(null, Status.EMPTY_WINDOW, -1));
    }

    @Test
    void marksHowFarEachRunWroteAViewAndClearForgetsThem() throws Exception {
        String v = prefix + "marked";
        assertThat(store.writtenThrough(v)).as("never marked").isEmpty();
        store.markWritten(v, 2, 0, 500);
        assertThat(store.writtenThrough(v)).as("one of two subtasks").isEmpty();
        store.markWritten(v, 2, 1, 300);
        assertThat(store.writtenThrough(v)).as("the least of a run's subtasks").hasValue(300);
        store.markWritten(v, 2, 1, 700);
        assertThat(store.writtenThrough(v)).as("a subtask's mark replaces its last").hasValue(500);
        // A later run at parallelism 3: its bound counts once all three have marked.
        store.markWritten(v, 3, 0, 900);
        store.markWritten(v, 3, 2, 950);
        assertThat(store.writtenThrough(v)).hasValue(500);
        store.markWritten(v, 3, 1, 920);
        assertThat(store.writtenThrough(v)).hasValue(900);
        assertThat(store.writtenThrough(prefix + "other")).isEmpty();

        store.clear(v);
        assertThat(store.writtenThrough(v)).as("a rebuild starts unmarked").isEmpty();
    }

    @Test
    void aChosenTimeIsIncompleteUntilTheJobHasWrittenThroughIt() throws Exception {
        // A view of its own, so that its marks are this test's alone on a shared Redis.
        ViewDef marked = withName(view, prefix + "asof");
        long ts = now - HOUR;
        EntityTiles tiles = new EntityTiles(marked.tileMillis(), marked.coarseMillis());
        tiles.add(new EventEntry(ts, "e", new Object[] {2.5, "toys", "card"}));
        store.write(TileWrites.of(marked, prefix + "e", tiles, tiles.tiles().keySet()));
        FeatureReader reader = new FeatureReader(store, List.of(marked), () -> now);
        List<FeatureReader.FeatureRef> refs =
                List.of(FeatureReader.FeatureRef.parse(marked.name() + ":purchases_1h"));
        Instant after = Instant.ofEpochMilli(ts + 1);
        List<String> entity = List.of(prefix + "e");
        FeatureValue whole = new FeatureValue(1L, Status.OK, ts);

        assertThat(reader.readAsOf(refs, entity, after).get(0).values())
                .as("no mark: the job may not have applied anything")
                .containsExactly(new FeatureValue(null, Status.INCOMPLETE, -1));
        store.markWritten(marked.name(), 1, 0, ts - 1);
        assertThat(reader.readAsOf(refs, entity, after).get(0).values())
                .as("the event at ts may still be on its way")
                .containsExactly(new FeatureValue(null, Status.INCOMPLETE, -1));
        assertThat(reader.readAsOf(refs, entity, Instant.ofEpochMilli(ts)).get(0).values())
                .as("at ts, only events before ts count: the job has written them all (none)")
                .containsExactly(WindowReads.notFound());
        store.markWritten(marked.name(), 1, 0, ts);
        assertThat(reader.readAsOf(refs, entity, after).get(0).values()).containsExactly(whole);
        assertThat(reader.read(refs, entity, after).get(0).values())
                .as("a read that does not ask how far the job got answers from the tiles")
                .containsExactly(whole);
        assertThat(
                        reader.readAsOf(refs, entity, Instant.ofEpochMilli(now - 9 * 24 * HOUR))
                                .get(0)
                                .values())
                .as("out of retention is out of retention, written or not")
                .extracting(FeatureValue::status)
                .containsOnly(Status.OUT_OF_RETENTION);
    }

    /** {@code view} under another name. */
    private static ViewDef withName(ViewDef view, String name) {
        SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
        FeatureViewConfig c =
                config.featureViews().stream()
                        .filter(v -> v.name().equals(view.name()))
                        .findFirst()
                        .orElseThrow();
        return ViewDef.of(
                new FeatureViewConfig(
                        name, c.entity(), c.source(), c.tile(), c.ttl(), c.features()),
                config.table(c.source()).orElseThrow());
    }

    @Test
    void refusesATimeLaterThanNow() {
        FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
        assertThatThrownBy(
                        () ->
                                reader.read(
                                        List.of(
                                                FeatureReader.FeatureRef.parse(
                                                        "user_purchases:purchases_1h")),
                                        List.of("x"),
                                        now + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("later than now");
    }

    @Test
    void readsRunsOfTilesAndOnlyWhatExists() throws Exception {
        long t0 = Windows.floor(now, HOUR);
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        for (long s : List.of(t0, t0 + 2 * MINUTE, t0 + 5 * MINUTE)) {
            writes.add(
                    new OnlineStore.TileWrite(
                            new OnlineStore.TileKey(
                                    view.name(), prefix + "runs", OnlineStore.Level.FINE, s),
                            1,
                            new byte[] {(byte) (s / MINUTE)},
                            now + HOUR));
        }
        writes.add(
                new OnlineStore.TileWrite(
                        new OnlineStore.TileKey(
                                view.name(), prefix + "runs", OnlineStore.Level.COARSE, t0),
                        1,
                        new byte[] {9},
                        now + HOUR));
        store.write(writes);
        List<OnlineStore.Found> found =
                store.read(
                        List.of(
                                new OnlineStore.RangeRead(
                                        view.name(),
                                        prefix + "runs",
                                        List.of(
                                                new OnlineStore.TileRange(
                                                        OnlineStore.Level.FINE,
                                                        t0 + MINUTE,
                                                        t0 + 6 * MINUTE,
                                                        MINUTE),
                                                new OnlineStore.TileRange(
                                                        OnlineStore.Level.COARSE,
                                                        t0 - HOUR,
                                                        t0 + HOUR,
                                                        HOUR))),
                                new OnlineStore.RangeRead(
                                        view.name(),
                                        prefix + "nobody",
                                        List.of(
                                                new OnlineStore.TileRange(
                                                        OnlineStore.Level.FINE,
                                                        t0,
                                                        t0 + 6 * MINUTE,
                                                        MINUTE)))),
                        now);
        assertThat(found.get(0).fine()).containsOnlyKeys(t0 + 2 * MINUTE, t0 + 5 * MINUTE);
        assertThat(found.get(0).fine().get(t0 + 5 * MINUTE))
                .containsExactly((byte) ((t0 + 5 * MINUTE) / MINUTE));
        assertThat(found.get(0).coarse()).containsOnlyKeys(t0);
        assertThat(found.get(1).fine()).isEmpty();
        assertThat(found.get(1).coarse()).isEmpty();
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
