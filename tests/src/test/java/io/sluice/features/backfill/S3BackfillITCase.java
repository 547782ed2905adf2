package io.sluice.features.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compact.testing.CompactedHours;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.StorageConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LakeFiles;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backfill with the lake on a real S3 server (S3Proxy in this JVM, objects kept as plain
 * files): the same warehouse on {@code file:} and on S3 gives the same feature log, row for row,
 * and a backfill over an hour the streaming job logged replaces what was there.
 */
class S3BackfillITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    private static final String ALL_ROWS =
            "select * from read_parquet('%s/*/*/*.parquet', hive_partitioning = false)"
                    + " order by entity, tile_start";

    @TempDir Path local;

    @Test
    void shouldWriteTheSameLogOnS3AsOnAFileRootAndReplaceWhatAnHourHeld() throws Exception {
        SluiceConfig onFile = TestConfigs.shop(local, "localhost:1", "t");
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(6, ChronoUnit.HOURS);
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(
                        onFile.tables(),
                        GeneratorOptions.defaults(3_000, 23)
                                .withStart(start)
                                .withSpan(java.time.Duration.ofHours(3)))
                .run(generated::add);
        for (TableConfig table : onFile.tables()) {
            LandingHours.write(local, table, generated, 2, true);
            CompactedHours.compactAll(onFile, table);
        }
        StorageConfig lake = S3.newLake();
        LakeFileSystem.initialize(lake, S3.server().env());
        SluiceConfig onS3 = TestConfigs.onStorage(onFile, lake);
        upload(local.resolve("raw"), lake, "raw");
        upload(local.resolve("warehouse"), lake, "warehouse");

        Instant from = start.minus(1, ChronoUnit.HOURS);
        Instant to = start.plus(3, ChronoUnit.HOURS);
        Backfill.Result fileResult = backfill(onFile, from, to);
        Backfill.Result s3Result = backfill(onS3, from, to);
        assertThat(s3Result.rows()).isPositive().isEqualTo(fileResult.rows());
        for (FeatureViewConfig view : onFile.featureViews()) {
            List<Map<String, Object>> expected = rows(localLog(view));
            assertThat(expected).as(view.name()).isNotEmpty();
            assertThat(rows(s3Log(lake, view))).as(view.name()).isEqualTo(expected);
        }

        // A file in an hour of the range, as the streaming job would have left it: the next
        // backfill's hour replaces it.
        FeatureViewConfig view = onFile.featureViews().get(0);
        String hour = firstHour(localLog(view));
        Path planted = Files.list(localLog(view).resolve(hour)).findFirst().orElseThrow();
        LakeFiles.write(
                LakeFiles.resolve(
                        onS3.tablePath("features", view.name()), hour + "/part-planted.parquet"),
                Files.readAllBytes(planted));
        assertThat(Files.exists(s3Log(lake, view).resolve(hour).resolve("part-planted.parquet")))
                .isTrue();
        assertThat(backfill(onS3, from, to).rows()).isEqualTo(fileResult.rows());
        assertThat(s3Log(lake, view).resolve(hour).resolve("part-planted.parquet")).doesNotExist();
        assertThat(rows(s3Log(lake, view))).isEqualTo(rows(localLog(view)));
    }

    private static Backfill.Result backfill(SluiceConfig config, Instant from, Instant to)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return Backfill.run(env, config, BackfillPlan.of(config, from, to));
    }

    private Path localLog(FeatureViewConfig view) {
        return local.resolve("features").resolve(view.name());
    }

    /** The plain-file directory S3Proxy keeps the view's log in. */
    private static Path s3Log(StorageConfig lake, FeatureViewConfig view) {
        return S3.server()
                .objectFile(lake.rootUri().getPath().substring(1) + "/features/" + view.name());
    }

    private static String firstHour(Path log) throws Exception {
        try (Stream<Path> dirs = Files.walk(log, 2)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("hr="))
                    .map(p -> log.relativize(p).toString())
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static void upload(Path dir, StorageConfig lake, String prefix) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                LakeFiles.write(
                        LakeFiles.resolve(lake.rootUri(), prefix + "/" + dir.relativize(f)),
                        Files.readAllBytes(f));
            }
        }
    }

    private static List<Map<String, Object>> rows(Path log) {
        try (DuckDb duck = new DuckDb()) {
            return duck.rows(String.format(ALL_ROWS, log));
        }
    }
}
