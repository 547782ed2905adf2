package io.sluice.app.bench;

import io.sluice.app.Jobs;
import io.sluice.app.Progress;
import io.sluice.app.ReferenceConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.OnlineStoreType;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.EventStreams;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.job.FeaturesJob;
import io.sluice.features.job.OnlineSink;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.redis.LocalRedis;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
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
            lines.addAll(OnlineReadLatency.section(redis, work, out));
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
        List<Double> base = new ArrayList<>();
        Drains sqlite =
                new Drains(
                        (p, run) ->
                                featuresRate(
                                        config,
                                        view,
                                        table,
                                        sqlite(work.resolve("run-" + run + "-p" + p + ".db")),
                                        produced,
                                        checkpoints,
                                        p));
        // Redis, as deployed: its writers run at the job's parallelism, where SQLite has one.
        Drains redis =
                new Drains(
                        (p, run) -> {
                            try (LocalRedis store = new LocalRedis()) {
                                OnlineConfig online =
                                        new OnlineConfig(OnlineStoreType.REDIS, store.uri());
                                return featuresRate(
                                        config, view, table, online, produced, checkpoints, p);
                            }
                        });
        // One unmeasured round first: a run 0 of each.
        IngestBenchmark.consumeOnly(config.kafka(), table, produced, parallelism, checkpoints);
        sqlite.warmUp();
        redis.warmUp();
        // The features job's front alone, cut short after a step: what bounds it here.
        FrontStages.Steps steps = new FrontStages.Steps();
        FrontStages.Front front =
                new FrontStages.Front(
                        config.kafka(), table, produced, parallelism, CHECKPOINTS, checkpoints);
        try (Progress progress = Progress.start("bench features", "runs", runs, out)) {
            for (int r = 1; r <= runs; r++) {
                FrontStages.Measured passThrough =
                        FrontStages.measure(
                                produced,
                                () ->
                                        IngestBenchmark.consumeOnly(
                                                config.kafka(),
                                                table,
                                                produced,
                                                parallelism,
                                                checkpoints));
                double b = passThrough.recordsPerSecond();
                base.add(b);
                steps.add("pass-through (records discarded after the source)", passThrough);
                front.addCuts(
                        steps,
                        FrontStages.Cut.PARSED,
                        FrontStages.Cut.DEDUPLICATED_WITH_RETRACTIONS);
                progress.println(
                        String.format(
                                "run %d/%d: pass-through %,.0f rec/s; features job into SQLite"
                                        + " %s; into Redis %s",
                                r, runs, b, sqlite.run(r, b), redis.run(r, b)));
                progress.advance(1);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(
                String.format(
                        "`./sluice bench features --events %d --runs %d --rate %s` drains a"
                                + " pre-filled topic of %,d page views (JSON, %d partitions, 2%%"
                                + " duplicates, 2%% invalid) through the `user_activity` view (5"
                                + " features) into SQLite, then into Redis (a new server for each"
                                + " drain), and through a pass-through job (the same Kafka"
                                + " source, records discarded), parallelism %d, checkpoints every"
                                + " 2 s, after one unmeasured round; above parallelism 1, each"
                                + " run also drains the same topic with the features job at"
                                + " parallelism 1 into each store. The SQLite store has one"
                                + " writer per view at any parallelism, Redis one per subtask.",
                        events,
                        runs,
                        rates.stream().map(String::valueOf).collect(Collectors.joining(",")),
                        produced,
                        parallelism,
                        parallelism));
        lines.add("");
        lines.add("| measure | median | runs |");
        lines.add("|---|---|---|");
        lines.add(BenchmarkReport.row("pass-through rec/s", "%,.0f", base));
        lines.addAll(sqlite.rows("parse, validate, de-duplicate, tiles, SQLite", ""));
        lines.addAll(redis.rows("parse, validate, de-duplicate, tiles, Redis", " into Redis"));
        lines.add("");
        lines.add(
                "What bounds it: in each run the features job's own front also drains the same"
                        + " topic alone, cut short after a step with its records discarded. The"
                        + " features job does these steps for each record before its tiles, so a"
                        + " cut's ratio is the most it can reach on this machine. CPU is the"
                        + " process's per record: every thread of the JVM, the in-process"
                        + " broker's included.");
        lines.add("");
        lines.addAll(steps.table("pass-through"));
        return lines;
    }

    /** One store's drains of the topic: the job's rate at the run's parallelism and at 1. */
    private final class Drains {
        private final Drain drain;
        private final List<Double> job = new ArrayList<>();
        private final List<Double> ratios = new ArrayList<>();
        private final List<Double> single = new ArrayList<>();
        private final List<Double> scaling = new ArrayList<>();

        Drains(Drain drain) {
            this.drain = drain;
        }

        /** One unmeasured drain at the run's parallelism, as run 0. */
        void warmUp() throws Exception {
            drain.rate(parallelism, 0);
        }

        /** Drains at the run's parallelism, then at 1; returns the progress line's figures. */
        String run(int run, double passThrough) throws Exception {
            double f = drain.rate(parallelism, run);
            job.add(f);
            ratios.add(f / passThrough);
            String line = String.format("%,.0f rec/s (ratio %.2f)", f, f / passThrough);
            if (parallelism > 1) {
                double one = drain.rate(1, run);
                single.add(one);
                scaling.add(f / one);
                line += String.format(", at parallelism 1 %,.0f rec/s", one);
            }
            return line;
        }

        List<String> rows(String what, String store) {
            List<String> rows = new ArrayList<>();
            rows.add(
                    BenchmarkReport.row(
                            "features job" + store + " rec/s (" + what + ")", "%,.0f", job));
            rows.add(
                    BenchmarkReport.row(
                            "**features job" + store + " ÷ pass-through**", "%.2f", ratios));
            if (!single.isEmpty()) {
                rows.add(
                        BenchmarkReport.row(
                                "features job" + store + " rec/s at parallelism 1 (same topic)",
                                "%,.0f",
                                single));
                rows.add(
                        BenchmarkReport.row(
                                "**features job" + store + " parallelism " + parallelism + " ÷ 1**",
                                "%.2f",
                                scaling));
            }
            return rows;
        }
    }

    /** The features job's rate at a parallelism, into one store, in a run. */
    private interface Drain {
        double rate(int parallelism, int run) throws Exception;
    }

    private static OnlineConfig sqlite(Path db) {
        return new OnlineConfig(OnlineStoreType.SQLITE, db.toUri());
    }

    private double featuresRate(
            SluiceConfig config,
            FeatureViewConfig view,
            TableConfig table,
            OnlineConfig online,
            long records,
            Path checkpoints,
            int parallelism)
            throws Exception {
        StreamExecutionEnvironment env = Jobs.local(parallelism, CHECKPOINTS, checkpoints);
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

    static FeatureViewConfig view(SluiceConfig config, String name) {
        return config.featureViews().stream()
                .filter(v -> v.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
