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
import io.sluice.features.online.OnlineStores;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.features.online.SqliteOnlineStore;
import io.sluice.features.online.TileWrites;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.redis.LocalRedis;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The features benchmark: the features job against a pass-through job on the same topic, freshness
 * (event time to readable online) at a sustained rate, and online read latency from Redis and
 * SQLite against a single-tile read of the same store.
 */
public final class FeaturesBenchmark {

    private static final Duration CHECKPOINTS = Duration.ofSeconds(2);
    private static final long MINUTE = 60_000;

    private final long events;
    private final int runs;
    private final int parallelism;

    /**
     * How often the freshness load reads its waiting probes: a probe's freshness is over-stated by
     * at most this much.
     */
    private static final long POLL_NANOS = 5_000_000L;

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
            List<Freshness> fresh = new ArrayList<>();
            for (int rate : rates) {
                fresh.add(freshness(config, kafka, redis, rate));
            }
            lines.addAll(freshnessSection(fresh));
            lines.add("");
            lines.addAll(readLatency(config, redis, work));
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
        IngestBenchmark.consumeOnly(
                kafka.bootstrapServers(), table, produced, parallelism, checkpoints);
        featuresRate(config, view, table, work.resolve("warm-up.db"), produced, checkpoints);
        List<Double> base = new ArrayList<>();
        List<Double> job = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        try (Progress progress = Progress.start("bench features", "runs", runs, out)) {
            for (int r = 1; r <= runs; r++) {
                double b =
                        IngestBenchmark.consumeOnly(
                                kafka.bootstrapServers(),
                                table,
                                produced,
                                parallelism,
                                checkpoints);
                double f =
                        featuresRate(
                                config,
                                view,
                                table,
                                work.resolve("run-" + r + ".db"),
                                produced,
                                checkpoints);
                base.add(b);
                job.add(f);
                ratios.add(f / b);
                progress.println(
                        String.format(
                                "run %d/%d: pass-through %,.0f rec/s, features job %,.0f rec/s,"
                                        + " ratio %.2f",
                                r, runs, b, f, f / b));
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
                                + " checkpoints every 2 s, after one unmeasured round.",
                        events,
                        runs,
                        rates.stream().map(String::valueOf).collect(Collectors.joining(",")),
                        produced,
                        parallelism,
                        parallelism),
                "",
                "| measure | median | runs |",
                "|---|---|---|",
                String.format(
                        "| pass-through rec/s | %,.0f | %s |",
                        BenchmarkReport.median(base), BenchmarkReport.runs(base, "%,.0f")),
                String.format(
                        "| features job rec/s (parse, validate, de-duplicate, tiles, SQLite) |"
                                + " %,.0f | %s |",
                        BenchmarkReport.median(job), BenchmarkReport.runs(job, "%,.0f")),
                String.format(
                        "| **features job ÷ pass-through** | **%.2f** | %s |",
                        BenchmarkReport.median(ratios), BenchmarkReport.runs(ratios, "%.2f")));
    }

    private double featuresRate(
            SluiceConfig config,
            FeatureViewConfig view,
            TableConfig table,
            Path db,
            long records,
            Path checkpoints)
            throws Exception {
        StreamExecutionEnvironment env = Jobs.local(parallelism, CHECKPOINTS, checkpoints);
        OnlineConfig online = new OnlineConfig(io.sluice.config.OnlineStoreType.SQLITE, db.toUri());
        FeaturesJob.defineView(
                env,
                view,
                table,
                EventStreams.source(config.kafka(), table, true, "bench-" + UUID.randomUUID()),
                new OnlineSink(online, 1_000, 100),
                true,
                null);
        return records / IngestBenchmark.seconds(env.execute("bench-features").getNetRuntime());
    }

    /**
     * Sustained load at {@code rate} events/s stamped with the wall clock, plus ten probe events a
     * second for fresh users; freshness is the time from a probe's event time until {@code get} at
     * that moment counts it in Redis.
     */
    private Freshness freshness(
            SluiceConfig config, EmbeddedKafka kafka, LocalRedis redis, int rate) throws Exception {
        TableConfig table = config.table("page_views").orElseThrow();
        FeatureViewConfig viewConfig = view(config, "user_activity");
        String topic = table.topic() + ".live-" + rate;
        kafka.createTopics(parallelism, topic);
        TableConfig live =
                new TableConfig(
                        table.name(),
                        topic,
                        table.schemaName(),
                        table.schema(),
                        table.format(),
                        table.eventTime(),
                        table.key(),
                        table.id(),
                        table.buckets(),
                        table.allowedLateness(),
                        table.maxOutOfOrderness(),
                        table.idleness(),
                        table.strict(),
                        table.maxRecordBytes(),
                        table.maxFuture(),
                        table.maxPast(),
                        table.dedupRetention());
        OnlineConfig online = new OnlineConfig(io.sluice.config.OnlineStoreType.REDIS, redis.uri());
        StreamExecutionEnvironment env =
                Jobs.local(
                        parallelism,
                        CHECKPOINTS,
                        Path.of(
                                System.getProperty("java.io.tmpdir"),
                                "sluice-bench-fresh-" + UUID.randomUUID()));
        FeaturesJob.defineView(
                env,
                viewConfig,
                live,
                EventStreams.source(
                        config.kafka(), live, false, "bench-fresh-" + UUID.randomUUID()),
                new OnlineSink(online, 1_000, 100),
                false,
                null);
        JobClient job = env.executeAsync("bench-freshness");
        ViewDef view = ViewDef.of(viewConfig, table);
        List<Double> latencies = new CopyOnWriteArrayList<>();
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers());
                OnlineStore store = OnlineStores.open(online)) {
            FeatureReader reader =
                    new FeatureReader(store, List.of(view), System::currentTimeMillis);
            List<FeatureReader.FeatureRef> count =
                    List.of(new FeatureReader.FeatureRef(view.name(), "page_views_5m"));
            long start = System.nanoTime();
            long end = start + sustain.toNanos();
            long warmUp = start + Duration.ofSeconds(5).toNanos();
            SplittableRandom random = new SplittableRandom(1);
            List<long[]> probes = new ArrayList<>(); // {probe number, event time}
            // Users no earlier load has written, so a probe counts only once its own event has.
            String prefix = "probe-" + rate + "-";
            long nextProbe = start;
            long nextPoll = start;
            int probe = 0;
            long now;
            while ((now = System.nanoTime()) < end) {
                long due = start + (long) (sent * 1e9 / rate);
                if (now < due) {
                    // Neither spin nor read without pause: this loop shares the machine with the
                    // job it measures, so it sleeps until the next send or probe read is due.
                    if (now >= nextPoll) {
                        pollProbes(reader, count, prefix, probes, latencies);
                        nextPoll = now + POLL_NANOS;
                    } else {
                        LockSupport.parkNanos(Math.min(due, nextPoll) - now);
                    }
                    continue;
                }
                String user = "user-" + random.nextInt(5_000);
                producer.send(record(topic, user, rate + "-e" + sent));
                sent++;
                if (now >= nextProbe) {
                    long eventTime = System.currentTimeMillis();
                    producer.send(record(topic, prefix + probe, rate + "-p" + probe, eventTime));
                    if (now >= warmUp) {
                        probes.add(new long[] {probe, eventTime});
                    }
                    probe++;
                    nextProbe += 100_000_000L;
                }
            }
            long drainUntil = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!probes.isEmpty() && System.nanoTime() < drainUntil) {
                pollProbes(reader, count, prefix, probes, latencies);
                LockSupport.parkNanos(POLL_NANOS);
            }
            if (!probes.isEmpty()) {
                throw new IllegalStateException(
                        probes.size() + " probe events never became readable");
            }
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
        List<Double> sorted = new ArrayList<>(latencies);
        sorted.sort(null);
        return new Freshness(
                rate,
                sent / (double) sustain.toSeconds(),
                sorted.size(),
                percentile(sorted, 0.50),
                percentile(sorted, 0.99));
    }

    /** One freshness load's result. */
    private record Freshness(int rate, double achieved, int probes, double p50, double p99) {}

    private List<String> freshnessSection(List<Freshness> loads) {
        List<String> lines = new ArrayList<>();
        lines.add(
                String.format(
                        "Freshness: the features job (Redis store, parallelism %d) under page views"
                            + " stamped with the wall clock for %d s at each rate (achieved: %s);"
                            + " ten probe events a second for new users, each timed from its event"
                            + " time until `get` at that moment counts it (%s probes after a 5 s"
                            + " warm-up; the waiting probes are read every 5 ms, and the load"
                            + " generator sleeps between sends, so it leaves the cores to the job)."
                            + " The online sink flushes every 100 ms.",
                        parallelism,
                        sustain.toSeconds(),
                        loads.stream()
                                .map(f -> String.format("%,.0f/s", f.achieved()))
                                .collect(Collectors.joining(", ")),
                        loads.stream()
                                .map(f -> String.valueOf(f.probes()))
                                .collect(Collectors.joining(", "))));
        lines.add("");
        lines.add("| freshness, event time → readable online | p50 | p99 | goal |");
        lines.add("|---|---|---|---|");
        for (Freshness f : loads) {
            lines.add(
                    String.format(
                            "| at %,d events/s | %.0f ms | %.0f ms | %s |",
                            f.rate(),
                            f.p50(),
                            f.p99(),
                            // The goals: 1 s at 20k events/s, 500 ms at 5k.
                            f.rate() <= 5_000 ? "p99 ≤ 500 ms" : "p99 ≤ 1,000 ms"));
        }
        return lines;
    }

    private static void pollProbes(
            FeatureReader reader,
            List<FeatureReader.FeatureRef> count,
            String prefix,
            List<long[]> probes,
            List<Double> latencies)
            throws Exception {
        if (probes.isEmpty()) {
            return;
        }
        List<String> entities = new ArrayList<>();
        for (long[] p : probes) {
            entities.add(prefix + p[0]);
        }
        long now = System.currentTimeMillis();
        List<FeatureReader.Vector> vectors = reader.read(count, entities, now);
        List<long[]> seen = new ArrayList<>();
        for (int i = 0; i < vectors.size(); i++) {
            Object v = vectors.get(i).values().get(0).value();
            if (v != null && ((Number) v).longValue() > 0) {
                latencies.add((double) (now - probes.get(i)[1]));
                seen.add(probes.get(i));
            }
        }
        probes.removeAll(seen);
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String user, String id) {
        return record(topic, user, id, System.currentTimeMillis());
    }

    private static ProducerRecord<byte[], byte[]> record(
            String topic, String user, String id, long eventTime) {
        // Concatenated, not String.format: this runs 20,000 times a second next to the job.
        String json =
                "{\"event_id\":\""
                        + id
                        + "\",\"event_time\":"
                        + eventTime
                        + ",\"user_id\":\""
                        + user
                        + "\",\"session_id\":\"s\",\"page\":\"/p\",\"category\":\"toys\","
                        + "\"device\":\"WEB\",\"country\":\"DE\"}";
        return new ProducerRecord<>(
                topic,
                user.getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8));
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

    private static double percentile(List<Double> sorted, double p) {
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

    private static FeatureViewConfig view(SluiceConfig config, String name) {
        return config.featureViews().stream()
                .filter(v -> v.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
