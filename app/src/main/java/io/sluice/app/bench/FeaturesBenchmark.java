package io.sluice.app.bench;

import io.sluice.app.Jobs;
import io.sluice.app.Progress;
import io.sluice.app.ReferenceConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
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

    static FeatureViewConfig view(SluiceConfig config, String name) {
        return config.featureViews().stream()
                .filter(v -> v.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
