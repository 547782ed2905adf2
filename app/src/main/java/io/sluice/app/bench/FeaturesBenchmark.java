package io.sluice.app.bench;

import io.sluice.app.Jobs;
import io.sluice.app.Progress;
import io.sluice.app.ReferenceConfig;
import io.sluice.config.Aggregation;
import io.sluice.config.FeatureType;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.EventStreams;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.job.FeaturesJob;
import io.sluice.features.job.OnlineSink;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.features.online.SqliteOnlineStore;
import io.sluice.features.online.TileWrites;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.redis.LocalRedis;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The features benchmark: the features job against a pass-through job on the same topic, freshness
 * (event time to readable online) at a sustained rate, and online read latency from Redis and
 * SQLite against a single-tile read of the same store.
 */
public final class FeaturesBenchmark {

    static final Duration CHECKPOINTS = Duration.ofSeconds(2);
    private static final long MINUTE = 60_000;

    private final long events;
    private final int runs;
    private final int parallelism;

    private final List<Integer> rates;
    private final Duration sustain;
    private final PrintStream out;

    public FeaturesBenchmark(
            long events,
            int runs,
            int parallelism,
            List<Integer> rates,
            Duration sustain,
            PrintStream out) {
        this.events = events;
        this.runs = runs;
        this.parallelism = parallelism;
        this.rates = List.copyOf(rates);
        this.sustain = sustain;
        this.out = out;
    }

    /** Runs every part in {@code work} and returns the markdown section it measured. */
    public String run(Path work) throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add("## Features: the features job and the online stores");
        lines.add("");
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                LocalRedis redis = new LocalRedis()) {
            SluiceConfig config = ReferenceConfig.writeInto(work, kafka.bootstrapServers());
            lines.addAll(throughput(config, kafka, work));
            lines.add("");
            lines.addAll(
                    new FreshnessBenchmark(parallelism, sustain).run(config, kafka, redis, rates));
            lines.add("");
            lines.addAll(readLatency(config, redis, work));
            lines.add("");
            TableConfig pageViews = config.table("page_views").orElseThrow();
            lines.addAll(
                    OnlineWriteCost.section(
                            redis,
                            ViewDef.of(view(config, "user_activity"), pageViews),
                            runs,
                            out));
        }
        lines.add("");
        lines.add("Measured " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".");
        return String.join("\n", lines);
    }

    private List<String> throughput(SluiceConfig config, EmbeddedKafka kafka, Path work)
            throws Exception {
        TableConfig table = config.table("page_views").orElseThrow();
        FeatureViewConfig view = view(config, "user_activity");
        kafka.createTopics(parallelism, table.topic());
        long produced = IngestBenchmark.fill(kafka.bootstrapServers(), table, events, out);
        Path checkpoints = work.resolve("checkpoints");
        // One unmeasured round first.
        IngestBenchmark.consumeOnly(config.kafka(), table, produced, parallelism, checkpoints);
        featuresRate(
                config,
                view,
                table,
                work.resolve("warm-up.db"),
                produced,
                checkpoints,
                parallelism);
        List<Double> base = new ArrayList<>();
        List<Double> job = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        // The same job with one task per step on the same topic: how the features job scales.
        List<Double> single = new ArrayList<>();
        List<Double> scaling = new ArrayList<>();
        try (Progress progress = Progress.start("bench features", "runs", runs, out)) {
            for (int r = 1; r <= runs; r++) {
                double b =
                        IngestBenchmark.consumeOnly(
                                config.kafka(), table, produced, parallelism, checkpoints);
                double f =
                        featuresRate(
                                config,
                                view,
                                table,
                                work.resolve("run-" + r + ".db"),
                                produced,
                                checkpoints,
                                parallelism);
                base.add(b);
                job.add(f);
                ratios.add(f / b);
                String atOne = "";
                if (parallelism > 1) {
                    double one =
                            featuresRate(
                                    config,
                                    view,
                                    table,
                                    work.resolve("single-" + r + ".db"),
                                    produced,
                                    checkpoints,
                                    1);
                    single.add(one);
                    scaling.add(f / one);
                    atOne = String.format("; parallelism 1 %,.0f rec/s", one);
                }
                progress.println(
                        String.format(
                                "run %d/%d: pass-through %,.0f rec/s, features job %,.0f rec/s,"
                                        + " ratio %.2f%s",
                                r, runs, b, f, f / b, atOne));
                progress.advance(1);
            }
        }
        return List.of(
                String.format(
                        "`./sluice bench features --events %d --runs %d --rate %s` drains a"
                                + " pre-filled topic of %,d page views (JSON, %d partitions, 2%%"
                                + " duplicates, 2%% invalid) through the `user_activity` view (5"
                                + " features) into SQLite, and through a pass-through job (the"
                                + " same Kafka source, records discarded), parallelism %d,"
                                + " checkpoints every 2 s, after one unmeasured round; above"
                                + " parallelism 1, each run also drains the same topic with the"
                                + " features job at parallelism 1. The SQLite store has one"
                                + " writer per view at any parallelism.",
                        events,
                        runs,
                        rates.stream().map(String::valueOf).collect(Collectors.joining(",")),
                        produced,
                        parallelism,
                        parallelism),
                "",
                "| measure | median | runs |",
                "|---|---|---|",
                BenchmarkReport.row("pass-through rec/s", "%,.0f", base),
                BenchmarkReport.row(
                        "features job rec/s (parse, validate, de-duplicate, tiles, SQLite)",
                        "%,.0f",
                        job),
                BenchmarkReport.row("**features job ÷ pass-through**", "%.2f", ratios),
                single.isEmpty()
                        ? ""
                        : String.join(
                                "\n",
                                BenchmarkReport.row(
                                        "features job rec/s at parallelism 1 (same topic)",
                                        "%,.0f",
                                        single),
                                BenchmarkReport.row(
                                        "**features job parallelism " + parallelism + " ÷ 1**",
                                        "%.2f",
                                        scaling)));
    }

    private double featuresRate(
            SluiceConfig config,
            FeatureViewConfig view,
            TableConfig table,
            Path db,
            long records,
            Path checkpoints,
            int parallelism)
            throws Exception {
        StreamExecutionEnvironment env = Jobs.local(parallelism, CHECKPOINTS, checkpoints);
        OnlineConfig online = new OnlineConfig(io.sluice.config.OnlineStoreType.SQLITE, db.toUri());
        FeaturesJob.defineView(
                env,
                view,
                table,
                EventStreams.source(config.kafka(), table, true, "bench-" + UUID.randomUUID()),
                new OnlineSink(online, view.name(), FeaturesJob.FLUSH_INTERVAL_MILLIS),
                true,
                null);
        return records / IngestBenchmark.seconds(env.execute("bench-features").getNetRuntime());
    }

    /** Online reads of 50 features over 1 and 100 entities, against one-tile reads. */
    private List<String> readLatency(SluiceConfig config, LocalRedis redis, Path work)
            throws Exception {
        TableConfig purchases = config.table("purchases").orElseThrow();
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
                List<FeatureReader.FeatureRef> refs = new ArrayList<>();
                view.features()
                        .forEach(
                                f -> refs.add(new FeatureReader.FeatureRef(view.name(), f.name())));
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
                features.add(
                        new FeatureDef(
                                a.name().toLowerCase() + "_" + w / MINUTE + "m",
                                a,
                                count ? -1 : 0,
                                w,
                                count ? FeatureType.LONG : FeatureType.DOUBLE,
                                !count));
                features.add(
                        new FeatureDef(
                                a.name().toLowerCase() + "_" + w / MINUTE + "m_b",
                                a,
                                count ? -1 : 0,
                                w,
                                count ? FeatureType.LONG : FeatureType.DOUBLE,
                                !count));
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

    static FeatureViewConfig view(SluiceConfig config, String name) {
        return config.featureViews().stream()
                .filter(v -> v.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
