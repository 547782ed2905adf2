package io.sluice.app.bench;

import io.sluice.config.Aggregation;
import io.sluice.config.FeatureType;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.FeatureRefs;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.features.online.SqliteOnlineStore;
import io.sluice.features.online.TileWrites;
import io.sluice.redis.LocalRedis;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The features benchmark's online reads: 50 features of 1 and 100 entities from Redis and SQLite,
 * against one-tile reads of the same store; its view and entities are also what {@link
 * ServeBenchmark} serves.
 */
final class OnlineReadLatency {

    private static final long MINUTE = 60_000;

    private OnlineReadLatency() {}

    /** Online reads of 50 features over 1 and 100 entities, against one-tile reads. */
    static List<String> section(LocalRedis redis, Path work, PrintStream out) throws Exception {
        ViewDef view = fiftyFeatures();
        List<String> rows = new ArrayList<>();
        rows.add(
                "Online reads: a view of 50 features over `purchases` (count, sum, min, max, avg"
                    + " and last over 5 minutes to 24 hours, 1-minute tiles, 6-minute mid and"
                    + " 1-hour coarse tiles) with 1,000 entities of 60 events each over the last 25"
                    + " hours; each figure is the median or 99th percentile of 2,000 reads (1"
                    + " entity) or 300 reads (100 entities) at `now`, after 200 unmeasured ones."
                    + " The baseline is one tile read from the same store.");
        rows.add("");
        rows.add("| store | read | p50 | p99 | p50 ÷ one-tile read | p99 ÷ one-tile read |");
        rows.add("|---|---|---|---|---|---|");
        for (String kind : List.of("Redis", "SQLite")) {
            try (OnlineStore store =
                    kind.equals("Redis")
                            ? new RedisOnlineStore(redis.uri())
                            : new SqliteOnlineStore(work.resolve("latency.db"))) {
                List<String> entities = populate(store, view);
                FeatureReader reader =
                        new FeatureReader(store, List.of(view), System::currentTimeMillis);
                List<FeatureReader.FeatureRef> refs = FeatureRefs.all(view);
                long now = System.currentTimeMillis();
                OnlineStore.TileKey one =
                        new OnlineStore.TileKey(
                                view.name(),
                                entities.get(0),
                                OnlineStore.Level.FINE,
                                now - Math.floorMod(now, MINUTE));
                double[] base = latencies(2_000, () -> store.readTiles(List.of(one), now));
                double[] single =
                        latencies(2_000, () -> reader.read(refs, entities.subList(0, 1), now));
                double[] hundred =
                        latencies(300, () -> reader.read(refs, entities.subList(0, 100), now));
                rows.add(
                        String.format(
                                "| %s | one tile (baseline) | %.3f ms | %.3f ms | 1 | 1 |",
                                kind, base[0], base[1]));
                rows.add(
                        String.format(
                                "| %s | 1 entity × 50 features | %.3f ms | %.3f ms | %.1f | %.1f |",
                                kind,
                                single[0],
                                single[1],
                                single[0] / base[0],
                                single[1] / base[1]));
                rows.add(
                        String.format(
                                "| %s | 100 entities × 50 features | %.3f ms | %.3f ms | %.1f |"
                                        + " %.1f |",
                                kind,
                                hundred[0],
                                hundred[1],
                                hundred[0] / base[0],
                                hundred[1] / base[1]));
                out.printf("read latency measured on %s%n", kind);
            }
        }
        return rows;
    }

    private interface Read {
        void run() throws Exception;
    }

    /** {p50, p99} in milliseconds of {@code n} reads, after 200 unmeasured ones. */
    private static double[] latencies(int n, Read read) throws Exception {
        for (int i = 0; i < 200; i++) {
            read.run();
        }
        List<Double> ms = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            read.run();
            ms.add((System.nanoTime() - t) / 1e6);
        }
        ms.sort(null);
        return new double[] {percentile(ms, 0.50), percentile(ms, 0.99)};
    }

    static double percentile(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }

    /**
     * 50 features over purchases' price (0), category (1) and payment_method (2); also what {@link
     * ServeBenchmark} serves.
     */
    static ViewDef fiftyFeatures() {
        List<FeatureDef> features = new ArrayList<>();
        long[] windows = {
            5 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE, 12 * 60 * MINUTE, 24 * 60 * MINUTE
        };
        Aggregation[] aggs = {
            Aggregation.COUNT, Aggregation.SUM, Aggregation.MIN, Aggregation.MAX, Aggregation.AVG
        };
        for (long w : windows) {
            for (Aggregation a : aggs) {
                boolean count = a == Aggregation.COUNT;
                // Each aggregation and window twice, under two names: 5 × 5 × 2 = 50 features.
                for (String suffix : List.of("m", "m_b")) {
                    features.add(
                            new FeatureDef(
                                    a.name().toLowerCase() + "_" + w / MINUTE + suffix,
                                    a,
                                    count ? -1 : 0,
                                    w,
                                    count ? FeatureType.LONG : FeatureType.DOUBLE,
                                    !count));
                }
            }
        }
        return new ViewDef(
                "bench_fifty",
                MINUTE,
                60 * MINUTE,
                2 * 24 * 60 * MINUTE,
                List.of("price", "category", "payment_method"),
                features);
    }

    /**
     * Writes 1,000 entities of 60 events each over the last 25 hours into {@code store}'s tiles of
     * {@code view}; returns the entity keys.
     */
    static List<String> populate(OnlineStore store, ViewDef view) throws Exception {
        SplittableRandom random = new SplittableRandom(5);
        long now = System.currentTimeMillis();
        List<String> entities = new ArrayList<>();
        for (int e = 0; e < 1_000; e++) {
            String entity = "bench-user-" + e;
            entities.add(entity);
            EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
            for (int i = 0; i < 60; i++) {
                tiles.add(
                        new EventEntry(
                                now - random.nextLong(25 * 60 * MINUTE),
                                entity + "-" + i,
                                new Object[] {random.nextDouble() * 100, "toys", "card"}));
            }
            store.write(TileWrites.of(view, entity, tiles, tiles.tiles().keySet()));
        }
        return entities;
    }
}
