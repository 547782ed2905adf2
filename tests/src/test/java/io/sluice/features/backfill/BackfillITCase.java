package io.sluice.features.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compact.testing.CompactedHours;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.StreamingRun;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch backfill against the streaming job it must reproduce: one seeded stream goes through a
 * real broker into the streaming features job, and the same records into complete landing hours and
 * the warehouse. The backfill's feature log then equals, row by row and column by column, the final
 * row the streaming job logged for every (entity, tile).
 */
class BackfillITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    private static final String STREAMING_FINAL_ROWS =
            "select * from read_parquet('%s/*/*/*.parquet', hive_partitioning = false)"
                    + " qualify row_number() over (partition by entity, tile_start"
                    + " order by version desc) = 1 order by entity, tile_start";

    private static final String ALL_ROWS =
            "select * from read_parquet('%s/*/*/*.parquet', hive_partitioning = false)"
                    + " order by entity, tile_start";

    @TempDir Path root;

    @Test
    void shouldWriteExactlyTheStreamingJobsFinalRowOfEveryTile() throws Exception {
        SluiceConfig config =
                TestConfigs.shop(
                        root,
                        KAFKA.bootstrap(),
                        "b" + UUID.randomUUID().toString().substring(0, 8));
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(7, ChronoUnit.HOURS);
        List<GeneratedRecord> generated = new ArrayList<>();
        // Few users and many late events, so that late events may grow tiles the streaming job
        // has already logged, leaving superseded rows the comparison must skip. Whether they do
        // depends on how far the watermark got when they arrive, which no bounded run controls.
        GeneratorOptions defaults = GeneratorOptions.defaults(4_000, 41);
        GeneratorOptions options =
                new GeneratorOptions(
                        defaults.events(),
                        defaults.seed(),
                        start,
                        defaults.span(),
                        defaults.outOfOrderness(),
                        defaults.duplicateRate(),
                        defaults.invalidRate(),
                        0.03,
                        defaults.lateBy(),
                        60,
                        defaults.items());
        new Generator(config.tables(), options).run(generated::add);

        StreamingRun.features(config, generated, KAFKA);
        Map<String, List<Map<String, Object>>> streamed = new LinkedHashMap<>();
        Map<String, Integer> streamedAll = new LinkedHashMap<>();
        for (FeatureViewConfig view : config.featureViews()) {
            streamed.put(view.name(), rows(STREAMING_FINAL_ROWS, logDir(config, view)));
            streamedAll.put(view.name(), rows(ALL_ROWS, logDir(config, view)).size());
        }
        long warehouseRows = landAndCompact(config, generated);

        // Events lie in [start - 1h (late ones), start + 6h): hour start - 2h is in range but
        // has none, and start + 6h, the last hour that is over, is outside the range.
        Instant from = start.minus(2, ChronoUnit.HOURS);
        Instant to = start.plus(6, ChronoUnit.HOURS);
        String emptyHour = HourPartitioner.partition(from.toEpochMilli());
        String outsideHour = HourPartitioner.partition(to.toEpochMilli());
        for (FeatureViewConfig view : config.featureViews()) {
            plantLogFile(config, view, emptyHour);
            plantLogFile(config, view, outsideHour);
        }

        List<long[]> progress = new ArrayList<>();
        Backfill.Result result = backfill(config, from, to, progress);

        long totalRows = 0;
        for (FeatureViewConfig view : config.featureViews()) {
            Path log = logDir(config, view);
            assertThat(log.resolve(emptyHour)).as("hour without rows").doesNotExist();
            Path outside = log.resolve(outsideHour);
            assertThat(outside.resolve("part-planted.parquet")).as("outside the range").exists();
            org.apache.flink.util.FileUtils.deleteDirectory(outside.toFile());

            List<Map<String, Object>> backfilled = rows(ALL_ROWS, log);
            List<Map<String, Object>> expected = streamed.get(view.name());
            TableConfig table = config.table(view.source()).orElseThrow();
            long accepted =
                    Expected.events(view, table, generated).values().stream()
                            .mapToLong(List::size)
                            .sum();
            assertThat(sumEvents(expected))
                    .as("events the streaming job logged")
                    .isEqualTo(accepted);
            assertThat(sumEvents(backfilled)).as("events the backfill logged").isEqualTo(accepted);
            assertThat(backfilled).as(view.name()).hasSizeGreaterThan(300);
            assertThat(backfilled.stream().map(r -> r.get("entity") + "@" + r.get("tile_start")))
                    .as("one row per tile")
                    .doesNotHaveDuplicates();
            assertThat(backfilled).as(view.name()).containsExactlyElementsOf(expected);

            Backfill.ViewResult summary = view(result, view.name());
            assertThat(summary.rows()).isEqualTo(backfilled.size());
            assertThat(summary.hoursRemoved()).isEqualTo(1);
            assertThat(summary.hoursWritten()).isEqualTo(hours(log));
            totalRows += backfilled.size();
            System.out.printf(
                    "%s: %d backfilled rows (%d events) equal the streaming job's final rows"
                            + " (%d rows logged in all)%n",
                    view.name(), backfilled.size(), accepted, streamedAll.get(view.name()));
        }
        assertThat(warehouseRows)
                .as("the warehouse holds the events the streaming job accepted")
                .isEqualTo(
                        config.featureViews().stream()
                                .mapToLong(v -> sumEvents(streamed.get(v.name())))
                                .sum());
        assertThat(result.rows()).isEqualTo(totalRows);
        assertThat(result.hours()).isEqualTo(8);
        // Its progress counts the warehouse rows each view reads, and ends with the job's own
        // count of the rows it read.
        long read =
                config.featureViews().stream()
                        .mapToLong(v -> sumEvents(streamed.get(v.name())))
                        .sum();
        assertThat(progress).first().satisfies(p -> assertThat(p).containsExactly(0, read));
        assertThat(progress).last().satisfies(p -> assertThat(p).containsExactly(read, read));
        assertThat(progress).allSatisfy(p -> assertThat(p[0]).isBetween(0L, read));

        // A re-run replaces the log with the same rows.
        Backfill.Result again = backfill(config, from, to, new ArrayList<>());
        assertThat(again.rows()).isEqualTo(totalRows);
        for (FeatureViewConfig view : config.featureViews()) {
            assertThat(rows(ALL_ROWS, logDir(config, view)))
                    .as("re-run of " + view.name())
                    .containsExactlyElementsOf(streamed.get(view.name()));
            assertThat(view(again, view.name()).hoursRemoved()).isZero();
        }
    }

    /** The same records into complete landing hours (duplicates kept), then compacted. */
    private long landAndCompact(SluiceConfig config, List<GeneratedRecord> generated)
            throws Exception {
        long rows = 0;
        for (TableConfig table : config.tables()) {
            LandingHours.write(root, table, generated, 2, true);
            CompactedHours.compactAll(config, table);
            for (WarehouseManifest m :
                    WarehouseManifest.readAll(root.resolve("warehouse").resolve(table.name()))) {
                rows += m.rows();
            }
        }
        return rows;
    }

    private static Backfill.Result backfill(
            SluiceConfig config, Instant from, Instant to, List<long[]> progress) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return Backfill.run(
                env,
                config,
                BackfillPlan.of(config, from, to),
                (done, total) -> progress.add(new long[] {done, total}));
    }

    /** A copy of one of the streaming log's files, standing in an hour it does not belong to. */
    private static void plantLogFile(SluiceConfig config, FeatureViewConfig view, String hour)
            throws Exception {
        Path log = logDir(config, view);
        Path any;
        try (Stream<Path> files = Files.walk(log)) {
            any =
                    files.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                            .filter(p -> !p.getFileName().toString().startsWith("."))
                            .findFirst()
                            .orElseThrow();
        }
        Path dir = Files.createDirectories(log.resolve(hour));
        Files.copy(any, dir.resolve("part-planted.parquet"));
    }

    private static Path logDir(SluiceConfig config, FeatureViewConfig view) {
        return Path.of(config.tablePath("features", view.name()));
    }

    private static List<Map<String, Object>> rows(String sql, Path log) {
        try (DuckDb duck = new DuckDb()) {
            return duck.rows(String.format(sql, log));
        }
    }

    private static long sumEvents(List<Map<String, Object>> rows) {
        return rows.stream().mapToLong(r -> ((Number) r.get("events")).longValue()).sum();
    }

    private static int hours(Path log) throws Exception {
        try (Stream<Path> dirs = Files.walk(log, 2)) {
            return (int) dirs.filter(p -> p.getFileName().toString().startsWith("hr=")).count();
        }
    }

    private static Backfill.ViewResult view(Backfill.Result result, String name) {
        return result.views().stream().filter(v -> v.view().equals(name)).findFirst().orElseThrow();
    }
}
