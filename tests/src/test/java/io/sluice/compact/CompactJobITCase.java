package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.catalog.CatalogUpkeep;
import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.CatalogConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.Await;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.WarehouseCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The compact job on a MiniCluster: a bounded range run, and a continuous one that notices. */
class CompactJobITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    private static final Instant START = Instant.parse("2026-11-21T00:00:00Z");

    @TempDir Path root;

    private SluiceConfig config;
    private TableConfig purchases;
    private Map<String, Long> landed;

    @BeforeEach
    void landThreeHours() throws IOException {
        config = TestConfigs.shop(root, "localhost:1", "t");
        purchases = config.table("purchases").orElseThrow();
        landed =
                LandingHours.write(
                        root,
                        purchases,
                        GeneratorOptions.defaults(3_000, 11)
                                .withStart(START.plusSeconds(60))
                                .withSpan(Duration.ofHours(3).minusMinutes(2))
                                .withRates(0, 0, 0),
                        2,
                        false);
        assertThat(landed)
                .containsOnlyKeys(
                        "dt=2026-11-21/hr=00", "dt=2026-11-21/hr=01", "dt=2026-11-21/hr=02");
    }

    @Test
    void rangeRunCompactsOnlyItsHoursAndASecondRunChangesNothing() throws Exception {
        CompactJob.Options range =
                new CompactJob.Options(
                        Optional.of(Instant.parse("2026-11-21T01:00:00Z")),
                        Optional.of(Instant.parse("2026-11-21T02:00:00Z")),
                        false,
                        false,
                        Duration.ofSeconds(30));
        List<HourCompactor.Result> first = run(range);
        assertThat(first)
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.partition()).isEqualTo("dt=2026-11-21/hr=01");
                            assertThat(r.outcome()).isEqualTo(HourCompactor.Outcome.COMPACTED);
                            assertThat(r.rows()).isEqualTo(landed.get("dt=2026-11-21/hr=01"));
                        });
        assertThat(WarehouseCheck.verify(root.resolve("warehouse/purchases"), purchases))
                .hasSize(landed.get("dt=2026-11-21/hr=01").intValue())
                .allSatisfy((id, partition) -> assertThat(partition).endsWith("hr=01"));

        assertThat(run(range)).as("nothing is stale any more").isEmpty();
    }

    /**
     * Also the continuous job's Iceberg maintenance: with a retention of one second, it expires
     * every snapshot but the current one, which still holds every warehouse file.
     */
    @Test
    void continuousJobCompactsCompletedAndReopenedHours() throws Exception {
        CatalogConfig c = config.catalog();
        SluiceConfig shortRetention =
                config.withCatalog(
                        new CatalogConfig(
                                c.type(),
                                c.name(),
                                c.namespace(),
                                c.uri(),
                                c.warehouse(),
                                c.properties(),
                                Duration.ofSeconds(1)));
        // The upkeep handed in (the app's keeps the feature logs' tables) runs with each
        // maintenance: here it leaves a mark per run, moved in whole (the test reads the marks
        // while later runs add theirs).
        String marks = root.resolve("upkeep").toString();
        CatalogUpkeep upkeep =
                (catalog, retention, now) -> {
                    Files.createDirectories(Path.of(marks));
                    Path mark = Files.createTempFile(Path.of(marks).getParent(), "mark", ".tmp");
                    Files.writeString(mark, retention.toString());
                    Files.move(
                            mark,
                            Path.of(marks, Long.toString(now)),
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                };
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        CompactJob.define(
                        env,
                        shortRetention,
                        new CompactJob.Options(
                                Optional.empty(),
                                Optional.empty(),
                                false,
                                true,
                                Duration.ofMillis(200)),
                        upkeep)
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("compact-continuous");
        try {
            Await.until(
                    "every landed hour compacted",
                    Duration.ofSeconds(60),
                    () -> warehouseRows() == landed.values().stream().mapToLong(l -> l).sum());

            String hour = "dt=2026-11-21/hr=02";
            long before =
                    WarehouseManifest.read(root.resolve("warehouse/purchases").resolve(hour))
                            .orElseThrow()
                            .rows();
            LandingEdits.addLatePurchase(root, purchases, hour, "late-1");
            Await.until(
                    "the re-opened hour compacted again",
                    Duration.ofSeconds(60),
                    () -> manifestRows(hour) == before + 1);
            assertThat(WarehouseCheck.verify(root.resolve("warehouse/purchases"), purchases))
                    .containsEntry("late-1", hour);

            long warehouseFiles =
                    WarehouseManifest.readAll(root.resolve("warehouse/purchases")).stream()
                            .mapToLong(m -> m.files().size())
                            .sum();
            try (LakeCatalog catalog = LakeCatalog.open(shortRetention)) {
                Table table = catalog.table(purchases);
                Await.until(
                        "the snapshots before the current one expired",
                        Duration.ofSeconds(60),
                        () -> {
                            table.refresh();
                            return count(table.snapshots()) == 1;
                        });
                try (CloseableIterable<FileScanTask> files = table.newScan().planFiles()) {
                    assertThat(count(files))
                            .as("the current snapshot's data files")
                            .isEqualTo(warehouseFiles);
                }
            }
            Await.until(
                    "the upkeep ran with at least two maintenances",
                    Duration.ofSeconds(60),
                    () -> {
                        try (Stream<Path> runs = Files.list(Path.of(marks))) {
                            return runs.count() >= 2;
                        } catch (java.nio.file.NoSuchFileException notYet) {
                            return false;
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
            try (Stream<Path> runs = Files.list(Path.of(marks))) {
                for (Path run : runs.toList()) {
                    assertThat(Files.readString(run))
                            .as("the retention it is given")
                            .isEqualTo("PT1S");
                }
            }
        } finally {
            if (job.getJobStatus().get() == org.apache.flink.api.common.JobStatus.FAILED) {
                // The job's own failure is what to report, not the cancel that it refuses.
                try {
                    job.getJobExecutionResult().get();
                } catch (java.util.concurrent.ExecutionException failed) {
                    throw new AssertionError("the continuous job failed", failed.getCause());
                }
            }
            job.cancel().get();
            // Cancelling is acknowledged before the task stops: an hour it was publishing could
            // still be writing under the temporary directory JUnit deletes next.
            Await.until(
                    "the job stopped",
                    Duration.ofSeconds(60),
                    () -> job.getJobStatus().join().isGloballyTerminalState());
        }
    }

    /**
     * A compaction that published an hour and died before its commit to the catalog: the job's next
     * run lists the hour (the table lacks its files though it is up to date) and commits it,
     * writing nothing again.
     */
    @Test
    void aRunCommitsAnHourPublishedButNotCommitted() throws Exception {
        String hour = "dt=2026-11-21/hr=02";
        // Published in the Hive layout, the commit never made.
        assertThat(new HourCompactor(purchases, root).compact(hour, false).outcome())
                .isEqualTo(HourCompactor.Outcome.COMPACTED);
        CompactJob.Options all = CompactJob.Options.all();
        assertThat(CompactJob.pendingHours(config, all))
                .as("two to compact, one to commit")
                .isEqualTo(3);
        assertThat(run(all))
                .extracting(HourCompactor.Result::partition)
                .containsExactlyInAnyOrder("dt=2026-11-21/hr=00", "dt=2026-11-21/hr=01");
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            IcebergHours iceberg = new IcebergHours(catalog.table(purchases), purchases);
            Set<String> published = new HashSet<>();
            WarehouseManifest manifest =
                    WarehouseManifest.read(root.resolve("warehouse/purchases").resolve(hour))
                            .orElseThrow();
            manifest.files()
                    .forEach(
                            f ->
                                    published.add(
                                            root.resolve("warehouse/purchases")
                                                    .resolve(hour)
                                                    .resolve(f.name())
                                                    .toUri()
                                                    .getPath()));
            Set<String> committed = new HashSet<>();
            iceberg.filesOf(hour).keySet().forEach(l -> committed.add(URI.create(l).getPath()));
            assertThat(committed).as("the hour's files in the table").isEqualTo(published);
        }
        assertThat(CompactJob.pendingHours(config, all)).isZero();
    }

    private List<HourCompactor.Result> run(CompactJob.Options options) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<HourCompactor.Result> results = new ArrayList<>();
        try (CloseableIterator<HourCompactor.Result> it =
                CompactJob.define(env, config, options).executeAndCollect("compact-range")) {
            it.forEachRemaining(
                    r -> {
                        if (r.outcome() != HourCompactor.Outcome.UP_TO_DATE) {
                            results.add(r);
                        }
                    });
        }
        return results;
    }

    private static long count(Iterable<?> items) {
        long n = 0;
        for (Object ignored : items) {
            n++;
        }
        return n;
    }

    private long warehouseRows() {
        try {
            return WarehouseManifest.readAll(root.resolve("warehouse/purchases")).stream()
                    .mapToLong(WarehouseManifest::rows)
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long manifestRows(String hour) {
        try {
            return WarehouseManifest.read(root.resolve("warehouse/purchases").resolve(hour))
                    .map(WarehouseManifest::rows)
                    .orElse(-1L);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
