package io.sluice.app.bench;

import io.sluice.app.ReferenceConfig;
import io.sluice.compact.Compaction;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.training.TrainingSetBuilder;
import io.sluice.features.training.TrainingSetRequest;
import io.sluice.features.training.TrainingSetResult;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.util.FileUtils;

/**
 * The training-set builder against DuckDB computing the same features in SQL ({@link
 * TrainingSetSql}) over the same warehouse files, for the same spine, each writing its result to
 * Parquet.
 */
public final class TrainingSetBenchmark {

    private final long events;
    private final int spineRows;
    private final int runs;
    private final PrintStream out;

    public TrainingSetBenchmark(long events, int spineRows, int runs, PrintStream out) {
        this.events = events;
        this.spineRows = spineRows;
        this.runs = runs;
        this.out = out;
    }

    /** Runs the benchmark in {@code work} and returns the markdown section it measured. */
    public String run(Path work) throws Exception {
        SluiceConfig config = ReferenceConfig.writeInto(work, "localhost:9092");
        Path root = Path.of(config.rootUri());
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(26));
        GeneratorOptions options =
                GeneratorOptions.defaults(events, 42)
                        .withStart(start)
                        .withSpan(Duration.ofHours(24))
                        .withRates(0, 0, 0);
        int cores = Runtime.getRuntime().availableProcessors();
        long warehouseRows = 0;
        for (TableConfig table : config.tables()) {
            warehouseRows +=
                    LandingHours.write(root, table, options, 1, false).values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
            Compaction.compactPending(config, table, cores);
        }
        out.printf("warehouse: %,d rows in 3 tables over 24 hours%n", warehouseRows);

        List<String> features = new ArrayList<>();
        for (FeatureViewConfig view : config.featureViews()) {
            view.features().forEach(f -> features.add(view.name() + ":" + f.name()));
        }
        Path spine = work.resolve("spine.parquet");
        Path sqlOut = work.resolve("sql.parquet");
        String query = TrainingSetSql.query(config, spine, "event_timestamp", features);
        TrainingSetBuilder p1 = new TrainingSetBuilder(config, 1);
        TrainingSetBuilder p2 = new TrainingSetBuilder(config, 2);
        TrainingSetRequest request =
                TrainingSetRequest.of(spine, features.stream().map(FeatureRef::parse).toList());
        List<Double> rates1 = new ArrayList<>();
        List<Double> rates2 = new ArrayList<>();
        List<Double> sqlRates = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        List<Double> scaling = new ArrayList<>();
        List<Double> heap1 = new ArrayList<>();
        List<Double> heap2 = new ArrayList<>();
        List<Double> cores1 = new ArrayList<>();
        List<Double> cores2 = new ArrayList<>();
        String duckdbVersion;
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            try (ResultSet rs = st.executeQuery("select version()")) {
                rs.next();
                duckdbVersion = rs.getString(1);
            }
            st.execute("set threads = 2");
            // Users who bought, one picked by a hash of each row's number (a cross join of the
            // users and the rows, sorted at random, took hours at a million rows), at random
            // times of the day the warehouse covers.
            st.execute("select setseed(0.42)");
            st.execute(
                    "copy (with u as (select user_id, row_number() over (order by user_id) - 1"
                            + " as i from (select distinct user_id from read_parquet('"
                            + root.resolve("warehouse/purchases")
                            + "/*/*/*.parquet'))), n as (select count(*) as c from u)"
                            + " select u.user_id, to_timestamp("
                            + (start.getEpochSecond() + 3600)
                            + " + random() * 23 * 3600) as event_timestamp, (random() < 0.1)::int"
                            + " as label from range("
                            + spineRows
                            + ") r cross join n join u on u.i = hash(r.range, 42) % n.c) to '"
                            + spine
                            + "' (format parquet)");
            // One unmeasured round of each first.
            measure(p2, request);
            st.execute("copy (" + query + ") to '" + sqlOut + "' (format parquet)");
            for (int run = 1; run <= runs; run++) {
                double[] one = measure(p1, request);
                double[] two = measure(p2, request);
                long t0 = System.nanoTime();
                st.execute("copy (" + query + ") to '" + sqlOut + "' (format parquet)");
                double sqlRate = spineRows / ((System.nanoTime() - t0) / 1e9);
                rates1.add(one[0]);
                rates2.add(two[0]);
                heap1.add(one[1]);
                heap2.add(two[1]);
                cores1.add(one[2]);
                cores2.add(two[2]);
                sqlRates.add(sqlRate);
                ratios.add(two[0] / sqlRate);
                scaling.add(two[0] / one[0]);
                out.printf(
                        "run %d/%d: builder p1 %,.0f rows/s (%.2f cores), p2 %,.0f rows/s (%.2f"
                                + " cores), DuckDB SQL %,.0f rows/s (p2 ÷ SQL %.2f, p2 ÷ p1"
                                + " %.2f)%n",
                        run,
                        runs,
                        one[0],
                        one[2],
                        two[0],
                        two[2],
                        sqlRate,
                        two[0] / sqlRate,
                        two[0] / one[0]);
            }
        }
        return String.join(
                "\n",
                "## Training sets: the builder's Flink job against DuckDB SQL",
                "",
                String.format(
                        "`./sluice bench training-set --events %d --spine-rows %d --runs %d`"
                                + " generates %,d events over 24 hours into the three tables and"
                                + " compacts them (%d Hive buckets each), then builds a training"
                                + " set of all %d features of the 3 views for a spine of %,d"
                                + " random (user, time) rows, per run: with the builder's Flink"
                                + " batch job on a local MiniCluster at parallelism 1 and at 2"
                                + " (the spine partitioned by bucket and sorted, the shared tile"
                                + " library, only the hours and bucket files the rows need,"
                                + " written as Parquet parts in spine order), and with DuckDB %s"
                                + " on 2 threads computing the same features in SQL"
                                + " (`TrainingSetSql`: a range join per view and filtered"
                                + " aggregates) over the same warehouse files, written as one"
                                + " Parquet file. Each builder time includes its pass over the"
                                + " spine and the MiniCluster's start. Peak heap: the JVM's heap"
                                + " pools' peak use during the build (the MiniCluster's tasks run"
                                + " in this JVM; -Xmx4g; garbage included, so an upper bound)."
                                + " CPU cores used: the JVM's CPU time during the build ÷ its"
                                + " wall time; a build at parallelism 1 already uses more than"
                                + " one core (its sorts' threads, the hand-over to the"
                                + " point-in-time thread, the writer, garbage collection), so on"
                                + " %d cores its speed-up from 1 to 2 is at most %d ÷ that."
                                + " One unmeasured round first. %d cores.",
                        events,
                        spineRows,
                        runs,
                        warehouseRows,
                        config.tables().get(0).buckets(),
                        features.size(),
                        spineRows,
                        duckdbVersion,
                        cores,
                        cores,
                        cores),
                "",
                "| measure | median | runs | goal |",
                "|---|---|---|---|",
                String.format(
                        "| builder spine rows/s, parallelism 1 | %,.0f | %s | |",
                        BenchmarkReport.median(rates1), BenchmarkReport.runs(rates1, "%,.0f")),
                String.format(
                        "| builder spine rows/s, parallelism 2 | %,.0f | %s | |",
                        BenchmarkReport.median(rates2), BenchmarkReport.runs(rates2, "%,.0f")),
                String.format(
                        "| DuckDB SQL spine rows/s | %,.0f | %s | |",
                        BenchmarkReport.median(sqlRates), BenchmarkReport.runs(sqlRates, "%,.0f")),
                String.format(
                        "| **builder at parallelism 2 ÷ DuckDB SQL** | **%.2f** | %s | ≥ 1.0%s |",
                        BenchmarkReport.median(ratios),
                        BenchmarkReport.runs(ratios, "%.2f"),
                        BenchmarkReport.median(ratios) >= 1.0 ? "" : " — not met"),
                String.format(
                        "| **builder parallelism 2 ÷ parallelism 1** | **%.2f** | %s | ≥ 1.7%s |",
                        BenchmarkReport.median(scaling),
                        BenchmarkReport.runs(scaling, "%.2f"),
                        BenchmarkReport.median(scaling) >= 1.7 ? "" : " — not met"),
                String.format(
                        "| CPU cores the JVM used during the build, parallelism 1 | %.2f | %s | |",
                        BenchmarkReport.median(cores1), BenchmarkReport.runs(cores1, "%.2f")),
                String.format(
                        "| CPU cores the JVM used during the build, parallelism 2 | %.2f | %s | |",
                        BenchmarkReport.median(cores2), BenchmarkReport.runs(cores2, "%.2f")),
                String.format(
                        "| peak heap MB, parallelism 1 | %,.0f | %s | |",
                        BenchmarkReport.median(heap1), BenchmarkReport.runs(heap1, "%,.0f")),
                String.format(
                        "| peak heap MB, parallelism 2 | %,.0f | %s | |",
                        BenchmarkReport.median(heap2), BenchmarkReport.runs(heap2, "%,.0f")),
                "",
                "Measured " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".");
    }

    /**
     * Builds the training set without the artifact cache; returns its rows per second and the
     * heap's peak use in MB.
     */
    private static double[] measure(TrainingSetBuilder builder, TrainingSetRequest request)
            throws Exception {
        System.gc();
        List<MemoryPoolMXBean> heap =
                ManagementFactory.getMemoryPoolMXBeans().stream()
                        .filter(p -> p.getType() == MemoryType.HEAP)
                        .toList();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        var os =
                (com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        TrainingSetResult result = builder.build(request, false);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cores = (os.getProcessCpuTime() - cpu0) / 1e9 / seconds;
        double rate = result.rows() / seconds;
        double peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum() / 1e6;
        FileUtils.deleteDirectory(Path.of(result.data()).getParent().toFile());
        return new double[] {rate, peak, cores};
    }
}
