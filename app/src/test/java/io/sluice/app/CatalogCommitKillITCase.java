package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.app.SluiceProcesses.Child;
import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.compact.Compaction;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.Await;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice compact} SIGKILLed between an hour's publish and its commit to the Iceberg catalog,
 * then run again with the same command. The window is held open the way a busy catalog holds it in
 * production: this test takes the catalog database's write lock (SQLite's {@code BEGIN IMMEDIATE}),
 * so the child JVM publishes the hour's Parquet files and {@code _SUCCESS} and then waits on its
 * commit, and is killed there. The hour is then published but not in the table; the next run
 * commits exactly the published files without compacting the hour again.
 */
class CatalogCommitKillITCase {

    @TempDir Path dir;

    @RegisterExtension final SluiceProcesses processes = new SluiceProcesses("512m");

    @Test
    void killedBetweenTheManifestAndTheCommitThenRunAgainCommitsThePublishedFiles()
            throws Exception {
        SluiceConfig config = ReferenceConfig.writeInto(dir, "localhost:1");
        TableConfig purchases = config.table("purchases").orElseThrow();
        Path root = Path.of(config.rootUri());
        Instant previous = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(3, ChronoUnit.HOURS);
        String committedHour = landOneHour(root, purchases, previous, 1);
        // Compacted and committed here, and every table of the lake created in the catalog: from
        // now on a compact run only reads the catalog until it commits.
        assertThat(Compaction.compactPending(config, purchases, 1)).hasSize(1);
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            config.tables().forEach(catalog::table);
        }
        String hour = landOneHour(root, purchases, previous.plus(1, ChronoUnit.HOURS), 2);
        Path hourDir = root.resolve("warehouse/purchases").resolve(hour);

        Child first;
        try (Connection catalogDb =
                        DriverManager.getConnection(
                                "jdbc:sqlite:" + config.catalog().sqlitePath());
                Statement lock = catalogDb.createStatement()) {
            lock.execute("BEGIN IMMEDIATE");
            first = compact("compact-1.log");
            Await.until(
                    "the hour's manifest published",
                    Duration.ofMinutes(2),
                    () ->
                            Files.exists(hourDir.resolve(WarehouseManifest.NAME))
                                    || !first.isAlive());
            // Still waiting for the catalog's lock (kill() fails the test if it has exited).
            first.kill();
            lock.execute("ROLLBACK");
        }
        WarehouseManifest manifest = WarehouseManifest.read(hourDir).orElseThrow();
        Set<String> published =
                manifest.files().stream()
                        .map(f -> hourDir.resolve(f.name()).toUri().getPath())
                        .collect(Collectors.toCollection(TreeSet::new));
        assertThat(published).as("the hour's published files").isNotEmpty();
        assertThat(committedFiles(config, purchases, hour))
                .as("the killed run's commit never made")
                .isEmpty();
        assertThat(committedFiles(config, purchases, committedHour)).isNotEmpty();

        Child again = compact("compact-2.log");
        assertThat(again.awaitExit(3)).as(again.output()).isZero();
        assertThat(committedFiles(config, purchases, hour))
                .as("the table holds exactly the files the killed run published")
                .isEqualTo(published);
        assertThat(WarehouseManifest.read(hourDir).orElseThrow())
                .as("committed as published, not compacted again")
                .isEqualTo(manifest);
    }

    /** Lands one hour of purchases starting at {@code start}; returns its partition. */
    private static String landOneHour(Path root, TableConfig table, Instant start, long seed)
            throws Exception {
        Map<String, Long> landed =
                LandingHours.write(
                        root,
                        table,
                        GeneratorOptions.defaults(2_000, seed)
                                .withStart(start.plusSeconds(60))
                                .withSpan(Duration.ofMinutes(58))
                                .withRates(0, 0, 0),
                        2,
                        false);
        assertThat(landed).hasSize(1);
        return landed.keySet().iterator().next();
    }

    private Child compact(String log) throws Exception {
        return processes.start(
                dir.resolve(log), "compact", "--config", dir.resolve("sluice.yaml").toString());
    }

    /** The paths of the files the catalog's table holds for {@code hour}. */
    private static Set<String> committedFiles(SluiceConfig config, TableConfig table, String hour)
            throws Exception {
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            return new IcebergHours(catalog.table(table), table)
                    .filesOf(hour).keySet().stream()
                            .map(l -> URI.create(l).getPath())
                            .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
