package io.sluice.app.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.features.online.TileWrites;
import io.sluice.redis.LocalRedis;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What Redis spends on the features job's tile writes: its own CPU time ({@code INFO cpu}) per tile
 * written through {@link RedisOnlineStore#write} (a compare-and-set on each tile's version, the
 * hash's expiry, the sweep of expired fields), against the same tiles stored by plain {@code HSET}s
 * (one per entity and batch, pipelined as the store's calls are, the same fields and values,
 * nothing checked or kept beside them) in the same run. The two sides take turns going first.
 *
 * <p>The tiles are those of a live load on {@code user_activity}: each batch is the tiles that
 * {@value #ENTITIES_PER_BATCH} random entities of {@value #ENTITIES} changed with one event each,
 * 50 ms of event time after the batch before (the fine tile with every event of its minute so far,
 * and the mid and coarse tiles above it), as the online sink sends them. The batches span less than
 * a minute of event time, so each hash holds a few tiles: a store holding a day of them (about
 * 1,700 fields an entity) costs its sweeps more.
 */
final class OnlineWriteCost {

    static final int ENTITIES = 5_000;
    static final int ENTITIES_PER_BATCH = 300;
    static final int BATCHES = 1_000;

    private OnlineWriteCost() {}

    /**
     * One unmeasured round, then {@code runs} measured ones; returns the markdown lines that report
     * them.
     */
    static List<String> section(LocalRedis redis, ViewDef view, int runs, PrintStream out)
            throws Exception {
        measure(redis, view, 0); // unmeasured: the JIT and Redis's allocator
        List<Double> stored = new ArrayList<>();
        List<Double> plain = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (int r = 1; r <= runs; r++) {
            double[] cost = measure(redis, view, r);
            stored.add(cost[0]);
            plain.add(cost[1]);
            ratios.add(cost[0] / cost[1]);
            out.printf(
                    "online writes %d/%d: %.2f µs of Redis CPU per tile, plain HSET %.2f µs%n",
                    r, runs, cost[0], cost[1]);
        }
        return List.of(
                String.format(
                        "Online writes: Redis's own CPU time (`INFO cpu`, user and system) per tile"
                                + " the features job writes to it (`RedisOnlineStore.write`: a"
                                + " compare-and-set on each tile's version, the hash's expiry, a"
                                + " sweep of expired fields at most every 10 s per hash), against"
                                + " the same tiles stored by one plain `HSET` per entity and batch"
                                + " (the same fields and values, pipelined as the store's calls"
                                + " are) in the same run, the two taking turns going first. %,d"
                                + " batches of the tiles"
                                + " %d random entities of %,d changed with one `user_activity`"
                                + " event each, 50 ms of event time apart (the fine tile with the"
                                + " events of its minute so far, and the mid and coarse tiles"
                                + " above it), as the online sink sends them; medians of %d runs"
                                + " after one unmeasured. The batches span under a minute of event"
                                + " time, so each hash holds a few tiles; a store holding a day of"
                                + " them (about 1,700 an entity) costs its sweeps more.",
                        BATCHES, ENTITIES_PER_BATCH, ENTITIES, runs),
                "",
                "| measure | median | runs |",
                "|---|---|---|",
                BenchmarkReport.row(
                        "Redis CPU per tile, plain `HSET` (baseline), µs", "%.2f", plain),
                BenchmarkReport.row("Redis CPU per tile, the store's write, µs", "%.2f", stored),
                BenchmarkReport.row("**store's write ÷ plain `HSET`**", "%.2f", ratios));
    }

    /**
     * Redis CPU µs per tile: {store write, plain HSET}, one round of each on fresh data, the store
     * first for an even {@code seed}.
     */
    static double[] measure(LocalRedis redis, ViewDef view, long seed) throws Exception {
        List<List<OnlineStore.TileWrite>> batches = batches(view, seed);
        long tiles = batches.stream().mapToLong(List::size).sum();
        RedisClient client = RedisClient.create(redis.uri().toString());
        try (StatefulRedisConnection<byte[], byte[]> connection =
                        client.connect(ByteArrayCodec.INSTANCE);
                RedisOnlineStore store = new RedisOnlineStore(redis.uri())) {
            RedisAsyncCommands<byte[], byte[]> commands = connection.async();
            double stored = 0;
            double plain = 0;
            for (int side = 0; side < 2; side++) {
                commands.flushall().get(30, TimeUnit.SECONDS);
                double before = cpuSeconds(commands);
                boolean storeSide = (side + seed) % 2 == 0;
                for (List<OnlineStore.TileWrite> batch : batches) {
                    if (storeSide) {
                        store.write(batch);
                    } else {
                        plain(connection, batch);
                    }
                }
                double spent = cpuSeconds(commands) - before;
                if (storeSide) {
                    stored = spent;
                } else {
                    plain = spent;
                }
            }
            commands.flushall().get(30, TimeUnit.SECONDS);
            return new double[] {stored * 1e6 / tiles, plain * 1e6 / tiles};
        } finally {
            client.shutdown();
        }
    }

    /** The batches of a live load, generated before either side is timed. */
    private static List<List<OnlineStore.TileWrite>> batches(ViewDef view, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Map<String, EntityTiles> entities = new HashMap<>();
        long start = Windows.floor(System.currentTimeMillis(), view.coarseMillis());
        Map<String, String[]> values =
                Map.of(
                        "page", new String[] {"/", "/search", "/item/1", "/item/2", "/cart"},
                        "category", new String[] {"toys", "books", "garden", "audio"},
                        "device", new String[] {"WEB", "IOS", "ANDROID"});
        List<List<OnlineStore.TileWrite>> batches = new ArrayList<>(BATCHES);
        long id = 0;
        for (int b = 0; b < BATCHES; b++) {
            long time = start + b * 50L;
            List<OnlineStore.TileWrite> batch = new ArrayList<>();
            for (int e = 0; e < ENTITIES_PER_BATCH; e++) {
                String entity = "user-" + random.nextInt(ENTITIES);
                EntityTiles tiles =
                        entities.computeIfAbsent(
                                entity,
                                k -> new EntityTiles(view.tileMillis(), view.coarseMillis()));
                Object[] fields = new Object[view.fields().size()];
                for (int f = 0; f < fields.length; f++) {
                    String[] choices =
                            values.getOrDefault(view.fields().get(f), new String[] {"x"});
                    fields[f] = choices[random.nextInt(choices.length)];
                }
                tiles.add(new EventEntry(time, "e" + id++, fields));
                batch.addAll(
                        TileWrites.of(
                                view,
                                entity,
                                tiles,
                                List.of(Windows.floor(time, view.tileMillis()))));
            }
            batches.add(batch);
        }
        return batches;
    }

    /**
     * The batch's tiles as one plain {@code HSET} per entity of the store's fields and values
     * ({@code <expireAt>,<version>,<payload>}), flushed to Redis together as the store sends its
     * calls, and awaited together.
     */
    private static void plain(
            StatefulRedisConnection<byte[], byte[]> connection, List<OnlineStore.TileWrite> batch)
            throws Exception {
        Map<String, Map<byte[], byte[]>> byEntity = new LinkedHashMap<>();
        for (OnlineStore.TileWrite w : batch) {
            byte[] prefix = ascii(w.expireAt() + "," + w.version() + ",");
            byte[] value = Arrays.copyOf(prefix, prefix.length + w.payload().length);
            System.arraycopy(w.payload(), 0, value, prefix.length, w.payload().length);
            String level = w.key().level().name().toLowerCase(Locale.ROOT).substring(0, 1);
            byEntity.computeIfAbsent(w.key().entity(), k -> new LinkedHashMap<>())
                    .put(ascii(level + w.key().start()), value);
        }
        List<RedisFuture<Long>> sent = new ArrayList<>(byEntity.size());
        connection.setAutoFlushCommands(false);
        try {
            for (Map.Entry<String, Map<byte[], byte[]>> e : byEntity.entrySet()) {
                sent.add(
                        connection.async().hset(ascii("bench:{" + e.getKey() + "}"), e.getValue()));
            }
            connection.flushCommands();
        } finally {
            connection.setAutoFlushCommands(true);
        }
        for (RedisFuture<Long> f : sent) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    /** Redis's own CPU time so far, user and system, in seconds. */
    private static double cpuSeconds(RedisAsyncCommands<byte[], byte[]> commands) throws Exception {
        double total = 0;
        for (String line : commands.info("cpu").get(30, TimeUnit.SECONDS).split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
