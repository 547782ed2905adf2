package io.sluice.app;

import io.sluice.app.bench.BenchmarkReport;
import io.sluice.app.bench.CompactionBenchmark;
import io.sluice.app.bench.FeaturesBenchmark;
import io.sluice.app.bench.IngestBenchmark;
import io.sluice.app.bench.ServeBenchmark;
import io.sluice.app.bench.TrainingSetBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice bench}: the benchmarks behind docs/benchmarks.md. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Run a benchmark and write its figures to docs/benchmarks.md.",
        subcommands = {
            BenchCommand.Ingest.class,
            BenchCommand.Compact.class,
            BenchCommand.Features.class,
            BenchCommand.TrainingSet.class,
            BenchCommand.Serve.class
        })
final class BenchCommand {

    /** A benchmark run in a temporary directory, its section written to {@code --report}. */
    interface Benchmark {
        String run(Path work) throws Exception;
    }

    /** {@code --storage}: whether to add runs on an in-process S3 server. */
    static final class Storage {
        @Option(
                names = "--storage",
                defaultValue = "file",
                description =
                        "file, or s3 to add as many runs on an in-process S3 server (S3Proxy),"
                                + " each next to a run on file: (default ${DEFAULT-VALUE}).")
        String kind;

        boolean s3() {
            if (!kind.equals("file") && !kind.equals("s3")) {
                throw new IllegalArgumentException(
                        "--storage must be file or s3, got '" + kind + "'");
            }
            return kind.equals("s3");
        }
    }

    /** The {@code --report} option every benchmark shares, and how a run ends up in it. */
    static final class Report {
        @Option(
                names = "--report",
                defaultValue = "docs/benchmarks.md",
                description = "Markdown file to update (default ${DEFAULT-VALUE}).")
        Path file;

        int write(String section, Benchmark benchmark) throws Exception {
            Path work = Files.createTempDirectory("sluice-bench-" + section + "-");
            try {
                String text = benchmark.run(work);
                BenchmarkReport.update(file, section, text);
                System.out.println(text);
            } finally {
                org.apache.flink.util.FileUtils.deleteDirectory(work.toFile());
            }
            return 0;
        }
    }

    @Command(
            name = "ingest",
            mixinStandardHelpOptions = true,
            description =
                    "Drain a pre-filled topic through the ingest job and through a consume-only"
                            + " job; report both rates and their ratio.")
    static final class Ingest implements Callable<Integer> {

        @Option(
                names = "--events",
                defaultValue = "1000000",
                description = "Records in the topic (default ${DEFAULT-VALUE}).")
        long events;

        @Mixin Runs runs = new Runs(3);

        @Option(
                names = "--parallelism",
                defaultValue = "2",
                description = "Job parallelism and topic partitions (default ${DEFAULT-VALUE}).")
        int parallelism;

        @Mixin Storage storage;

        @Mixin Report report;

        @Override
        public Integer call() throws Exception {
            if (events < 1 || runs.count < 1 || parallelism < 1) {
                throw new IllegalArgumentException(
                        "--events, --runs and --parallelism must be at least 1");
            }
            return report.write(
                    "ingest",
                    work ->
                            new IngestBenchmark(
                                            events,
                                            runs.count,
                                            parallelism,
                                            storage.s3(),
                                            System.out)
                                    .run(work));
        }
    }

    @Command(
            name = "compact",
            mixinStandardHelpOptions = true,
            description =
                    "Compact one large landing hour and rewrite it plainly to Parquet; then look"
                            + " keys up in both with DuckDB. Reports rates, bytes read and times.")
    static final class Compact implements Callable<Integer> {

        @Option(
                names = "--events",
                defaultValue = "1000000",
                description = "Rows in the hour (default ${DEFAULT-VALUE}).")
        long events;

        @Mixin Runs runs = new Runs(5);

        @Mixin Storage storage;

        @Mixin Report report;

        @Override
        public Integer call() throws Exception {
            if (events < 1000 || runs.count < 1) {
                throw new IllegalArgumentException(
                        "--events must be at least 1000 and --runs at least 1");
            }
            return report.write(
                    "compact",
                    work ->
                            new CompactionBenchmark(events, runs.count, storage.s3(), System.out)
                                    .run(work));
        }
    }

    @Command(
            name = "features",
            mixinStandardHelpOptions = true,
            description =
                    "The features job against a pass-through job on the same topic; freshness at a"
                            + " sustained rate into Redis; online read latency from Redis and"
                            + " SQLite.")
    static final class Features implements Callable<Integer> {

        @Option(
                names = "--events",
                defaultValue = "1000000",
                description = "Records in the throughput topic (default ${DEFAULT-VALUE}).")
        long events;

        @Mixin Runs runs = new Runs(3);

        @Option(
                names = "--parallelism",
                defaultValue = "2",
                description = "Job parallelism and topic partitions (default ${DEFAULT-VALUE}).")
        int parallelism;

        @Option(
                names = "--rate",
                defaultValue = "5000,20000",
                split = ",",
                description =
                        "Events per second for the freshness test, one load per rate (default"
                                + " ${DEFAULT-VALUE}: the rates of the freshness goals).")
        List<Integer> rates;

        @Option(
                names = "--seconds",
                defaultValue = "20",
                description = "How long the freshness load runs (default ${DEFAULT-VALUE}).")
        int seconds;

        @Mixin Report report;

        @Override
        public Integer call() throws Exception {
            if (events < 1
                    || runs.count < 1
                    || parallelism < 1
                    || rates.stream().anyMatch(r -> r < 1)
                    || seconds < 10) {
                throw new IllegalArgumentException(
                        "--events, --runs, --parallelism and --rate must be at least 1, --seconds"
                                + " at least 10");
            }
            return report.write(
                    "features",
                    work ->
                            new FeaturesBenchmark(
                                            events,
                                            runs.count,
                                            parallelism,
                                            rates,
                                            java.time.Duration.ofSeconds(seconds),
                                            System.out)
                                    .run(work));
        }
    }

    @Command(
            name = "training-set",
            mixinStandardHelpOptions = true,
            description =
                    "Build a training set for a random spine with the builder and with DuckDB SQL"
                            + " over the same warehouse; report both rates and their ratio.")
    static final class TrainingSet implements Callable<Integer> {

        @Option(
                names = "--events",
                defaultValue = "3400000",
                description =
                        "Events per table in the warehouse (three tables), over 24 hours"
                                + " (default ${DEFAULT-VALUE}).")
        long events;

        @Option(
                names = "--spine-rows",
                defaultValue = "1000000",
                description = "Rows in the spine (default ${DEFAULT-VALUE}).")
        int spineRows;

        @Mixin Runs runs = new Runs(3);

        @Mixin Report report;

        @Override
        public Integer call() throws Exception {
            if (events < 1000 || spineRows < 1 || runs.count < 1) {
                throw new IllegalArgumentException(
                        "--events must be at least 1000, --spine-rows and --runs at least 1");
            }
            return report.write(
                    "training-set",
                    work ->
                            new TrainingSetBenchmark(events, spineRows, runs.count, System.out)
                                    .run(work));
        }
    }

    @Command(
            name = "serve",
            mixinStandardHelpOptions = true,
            description =
                    "Load the HTTP feature server over a local Redis on an open loop: latency of 1"
                            + " entity × 50 features at 500 requests/s and of many entities at 50"
                            + " requests/s against the store's raw read, and the highest rate with"
                            + " p99 ≤ 10 ms.")
    static final class Serve implements Callable<Integer> {

        @Mixin Runs runs = new Runs(3);

        @Option(
                names = "--duration",
                defaultValue = "10",
                description =
                        "Seconds of each measured phase of the fixed-rate scenarios (default"
                                + " ${DEFAULT-VALUE}).")
        int duration;

        @Option(
                names = "--step",
                defaultValue = "3",
                description =
                        "Seconds of each rate step of the highest-rate search (default"
                                + " ${DEFAULT-VALUE}).")
        int step;

        @Option(
                names = "--entities",
                defaultValue = "100",
                description =
                        "Entities per request in the many-entities scenario, at most 1000 (default"
                                + " ${DEFAULT-VALUE}).")
        int entities;

        @Mixin Report report;

        @Override
        public Integer call() throws Exception {
            if (runs.count < 1 || duration < 1 || step < 1 || entities < 1 || entities > 1000) {
                throw new IllegalArgumentException(
                        "--runs, --duration and --step must be at least 1, --entities between 1"
                                + " and 1000");
            }
            return report.write(
                    "serve",
                    work ->
                            new ServeBenchmark(
                                            runs.count,
                                            java.time.Duration.ofSeconds(duration),
                                            java.time.Duration.ofSeconds(step),
                                            entities,
                                            System.out)
                                    .run(work));
        }
    }
}
