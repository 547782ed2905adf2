package io.sluice.app.bench;

import io.sluice.app.ReferenceConfig;
import io.sluice.compact.HourCompactor;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.training.TrainingSetBuilder;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import java.io.PrintStream;
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
import java.util.Optional;
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
            HourCompactor compactor = new HourCompactor(table, root, cores);
            for (String hour : compactor.pending(Optional.empty(), Optional.empty(), false)) {
                compactor.compact(hour, false);
            }
        }
        out.printf("warehouse: %,d rows in 3 tables over 24 hours%n", warehouseRows);

        List<String> features = new ArrayList<>();
        for (FeatureViewConfig view : config.featureViews()) {
            view.features().forEach(f -> features.add(view.name() + ":" + f.name()));
        }
        Path spine = work.resolve("spine.parquet");
        Path sqlOut = work.resolve("sql.parquet");
        String query = TrainingSetSql.query(config, spine, "event_timestamp", features);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, cores);
        TrainingSetBuilder.Request request =
                TrainingSetBuilder.Request.of(
                        spine, features.stream().map(FeatureRef::parse).toList());
        List<Double> builderRates = new ArrayList<>();
        List<Double> sqlRates = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        String duckdbVersion;
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            try (ResultSet rs = st.executeQuery("select version()")) {
                rs.next();
                duckdbVersion = rs.getString(1);
            }
            // Users who bought, at random times of the day the warehouse covers.
            st.execute("select setseed(0.42)");
            st.execute(
                    "copy (select u.user_id, to_timestamp("
                            + (start.getEpochSecond() + 3600)
                            + " + random() * 23 * 3600) as event_timestamp, (random() < 0.1)::int"
                            + " as label from (select distinct user_id from read_parquet('"
                            + root.resolve("warehouse/purchases")
                            + "/*/*/*.parquet')) u, range("
                            + spineRows
                            + ") r order by random() limit "
                            + spineRows
                            + ") to '"
                            + spine
                            + "' (format parquet)");
            // One unmeasured round of each first.
            FileUtils.deleteDirectory(builder.build(request, false).data().getParent().toFile());
            st.execute("copy (" + query + ") to '" + sqlOut + "' (format parquet)");
            for (int run = 1; run <= runs; run++) {
                System.gc();
                long t0 = System.nanoTime();
                TrainingSetBuilder.Result result = builder.build(request, false);
                double builderRate = result.rows() / ((System.nanoTime() - t0) / 1e9);
                FileUtils.deleteDirectory(result.data().getParent().toFile());
                t0 = System.nanoTime();
                st.execute("copy (" + query + ") to '" + sqlOut + "' (format parquet)");
                double sqlRate = spineRows / ((System.nanoTime() - t0) / 1e9);
                builderRates.add(builderRate);
                sqlRates.add(sqlRate);
                ratios.add(builderRate / sqlRate);
                out.printf(
                        "run %d/%d: builder %,.0f rows/s, DuckDB SQL %,.0f rows/s (%.2f)%n",
                        run, runs, builderRate, sqlRate, builderRate / sqlRate);
            }
        }
        return String.join(
                "\n",
                "## Training sets: the builder against DuckDB SQL",
                "",
                String.format(
                        "`./sluice bench training-set --events %d --spine-rows %d --runs %d`"
                                + " generates %,d events over 24 hours into the three tables and"
                                + " compacts them (%d Hive buckets each), then builds a training"
                                + " set of all %d features of the 3 views for a spine of %,d"
                                + " random (user, time) rows, twice per run: with the builder"
                                + " (the shared tile library, %d threads, only the hours and"
                                + " bucket files the rows need) and with DuckDB %s computing the"
                                + " same features in SQL (`TrainingSetSql`: a range join per view"
                                + " and filtered aggregates) over the same warehouse files. Both"
                                + " write Parquet. One unmeasured round first.",
                        events,
                        spineRows,
                        runs,
                        warehouseRows,
                        config.tables().get(0).buckets(),
                        features.size(),
                        spineRows,
                        cores,
                        duckdbVersion),
                "",
                "| measure | median | runs |",
                "|---|---|---|",
                String.format(
                        "| builder spine rows/s | %,.0f | %s |",
                        BenchmarkReport.median(builderRates),
                        BenchmarkReport.runs(builderRates, "%,.0f")),
                String.format(
                        "| DuckDB SQL spine rows/s | %,.0f | %s |",
                        BenchmarkReport.median(sqlRates), BenchmarkReport.runs(sqlRates, "%,.0f")),
                String.format(
                        "| **builder ÷ DuckDB SQL** (goal ≥ 0.5) | **%.2f** | %s |",
                        BenchmarkReport.median(ratios), BenchmarkReport.runs(ratios, "%.2f")),
                "",
                "Measured " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".");
    }
}
