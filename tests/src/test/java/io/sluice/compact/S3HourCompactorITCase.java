package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.CatalogConfig;
import io.sluice.config.CompactConfig;
import io.sluice.config.StorageConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.ManifestPublish;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.DuckDb;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction with the lake on a real S3 server (S3Proxy in this JVM, objects kept as plain files):
 * the hour is published by its manifest, since an object store cannot rename. Every result is
 * compared, object by object, with a compaction of the same landing hours on a {@code file:} root,
 * which the other compaction tests check with DuckDB, parquet-java and Hive's hash.
 */
class S3HourCompactorITCase {

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");
    private static final String HOUR = "dt=2026-11-21/hr=04";

    @TempDir Path local;

    private TableConfig purchases;
    private URI lake;

    @BeforeEach
    void landOnBothRoots() throws IOException {
        StorageConfig storage = S3.newLake();
        LakeFileSystem.initialize(storage, S3.server().env());
        lake = storage.rootUri();
        purchases = TestConfigs.shop(local, "localhost:1", "t").table("purchases").orElseThrow();
        Map<String, Long> landed =
                LandingHours.write(
                        local,
                        purchases,
                        GeneratorOptions.defaults(4_000, 11)
                                .withStart(START)
                                .withSpan(Duration.ofHours(2))
                                .withRates(0.05, 0, 0),
                        3,
                        true);
        assertThat(landed).containsKeys("dt=2026-11-21/hr=03", HOUR);
        upload(local.resolve("raw"), "raw");
    }

    @Test
    void compactsToTheSameObjectsAsOnAFileRootAndACrashBeforeTheManifestLosesNothing()
            throws Exception {
        HourCompactor onS3 = HourCompactor.builder(purchases, lake).threads(2).build();
        HourCompactor onFile = HourCompactor.builder(purchases, local.toUri()).threads(2).build();
        List<String> pending = onS3.pending(Optional.empty(), Optional.empty(), false);
        assertThat(pending)
                .contains(HOUR)
                .isEqualTo(onFile.pending(Optional.empty(), Optional.empty(), false));
        for (String hour : pending) {
            assertThat(onS3.compact(hour, false).outcome())
                    .isEqualTo(HourCompactor.Outcome.COMPACTED);
            onFile.compact(hour, false);
        }
        assertThat(onS3.pending(Optional.empty(), Optional.empty(), false)).isEmpty();
        assertThat(objects("warehouse")).isEqualTo(files(local.resolve("warehouse")));
        Map<String, String> before = objects("warehouse/purchases/" + HOUR);

        // A late event re-opens the hour. The file: root's compaction of it says what the new
        // version is: one bucket changes.
        LandingEdits.addLatePurchase(local, purchases, HOUR, "late-1");
        upload(local.resolve("raw/purchases/" + HOUR), "raw/purchases/" + HOUR);
        onFile.compact(HOUR, false);
        Map<String, String> expected = files(local.resolve("warehouse/purchases/" + HOUR));
        Map<String, String> added = new TreeMap<>(expected);
        added.keySet().removeAll(before.keySet());
        assertThat(added.keySet()).singleElement().asString().endsWith(".parquet");
        assertThat(expected.get("_SUCCESS")).isNotEqualTo(before.get("_SUCCESS"));

        // The process dies after uploading every bucket file, before the manifest: an Error skips
        // every cleanup path.
        int bucketFiles = expected.size() - 1;
        HourCompactor crashing =
                HourCompactor.builder(purchases, lake)
                        .afterBucket(
                                uploaded -> {
                                    if (uploaded == bucketFiles) {
                                        throw new SimulatedCrash();
                                    }
                                })
                        .build();
        assertThatThrownBy(() -> crashing.compact(HOUR, false)).isInstanceOf(SimulatedCrash.class);
        Map<String, String> afterCrash = new TreeMap<>(before);
        afterCrash.putAll(added);
        assertThat(objects("warehouse/purchases/" + HOUR))
                .as("the old manifest, every file it lists, and the new bucket file")
                .isEqualTo(afterCrash);
        assertThat(manifestRows(HOUR)).isEqualTo(rowsOnDisk(before.keySet()));
        assertThat(onS3.pending(Optional.empty(), Optional.empty(), false)).containsExactly(HOUR);

        // The re-run publishes the new set; the file the manifest no longer lists waits for the
        // grace period, named by a tombstone in the staging area.
        assertThat(onS3.compact(HOUR, false).outcome()).isEqualTo(HourCompactor.Outcome.COMPACTED);
        Map<String, String> published = new TreeMap<>(before);
        published.putAll(expected);
        assertThat(objects("warehouse/purchases/" + HOUR)).isEqualTo(published);
        assertThat(objects("_staging/compact/purchases").keySet())
                .singleElement()
                .asString()
                .endsWith(ManifestPublish.TOMBSTONE_SUFFIX);

        ManifestPublish.removeExpired(
                LakeFiles.resolve(lake, "_staging/compact/purchases"), Duration.ofHours(1));
        assertThat(objects("warehouse/purchases/" + HOUR).keySet())
                .as("kept for the grace period")
                .containsAll(before.keySet());
        ManifestPublish.removeExpired(
                LakeFiles.resolve(lake, "_staging/compact/purchases"), Duration.ZERO);
        assertThat(objects("warehouse/purchases/" + HOUR)).isEqualTo(expected);
        assertThat(objects("_staging/compact/purchases")).isEmpty();
        assertThat(objects("warehouse")).isEqualTo(files(local.resolve("warehouse")));
        assertThat(manifestRows(HOUR)).isEqualTo(rowsOnDisk(expected.keySet()));
        try (DuckDb duck = new DuckDb()) {
            assertThat(
                            duck.count(
                                    "select count(*) from read_parquet('"
                                            + onDisk("warehouse/purchases/" + HOUR)
                                            + "/*.parquet') where event_id = 'late-1'"))
                    .isEqualTo(1);
        }
    }

    @Test
    void eachHourOnS3IsCommittedToAnIcebergTableWhoseMetadataIsOnS3Too() throws Exception {
        // The catalog's database is a local file; the table's metadata and data are objects.
        try (LakeCatalog catalog =
                LakeCatalog.open(CatalogConfig.sqlite(local.resolve("catalog.db")), lake)) {
            Table table = catalog.table(purchases);
            HourCompactor onS3 =
                    HourCompactor.builder(purchases, lake)
                            .threads(2)
                            .memoryBudget(HourCompactor.memoryBudget(CompactConfig.DEFAULTS, 2))
                            .iceberg(new IcebergHours(table, purchases))
                            .build();
            List<String> pending = onS3.pending(Optional.empty(), Optional.empty(), false);
            for (String hour : pending) {
                onS3.compact(hour, false);
            }
            table.refresh();
            assertThat(table.snapshots()).hasSize(pending.size());

            // Its files are exactly the warehouse objects the manifests list.
            Set<String> files = new HashSet<>();
            try (var tasks = table.newScan().planFiles()) {
                tasks.forEach(t -> files.add(t.file().location()));
            }
            Set<String> warehouse = new HashSet<>();
            URI tableRoot = LakeFiles.resolve(lake, "warehouse/purchases");
            for (WarehouseManifest m : WarehouseManifest.readAll(tableRoot)) {
                URI hour = LakeFiles.resolve(tableRoot, m.partition());
                m.files().forEach(f -> warehouse.add(LakeFiles.resolve(hour, f.name()).toString()));
            }
            assertThat(files).isNotEmpty().isEqualTo(warehouse);
            assertThat(files).allMatch(f -> f.startsWith("s3://"));

            // Its metadata is in the bucket under warehouse/_iceberg, beside nothing else.
            assertThat(table.location())
                    .isEqualTo(LakeFiles.resolve(lake, "warehouse/_iceberg/purchases").toString());
            assertThat(objects("warehouse/_iceberg/purchases/metadata").keySet())
                    .anyMatch(n -> n.endsWith(".metadata.json"))
                    .anyMatch(n -> n.endsWith(".avro"));

            // Iceberg's own reader, through the catalog, reads the rows DuckDB reads from the
            // objects' files.
            Set<String> ids = new HashSet<>();
            try (CloseableIterable<Record> rows =
                    IcebergGenerics.read(table).select("event_id").build()) {
                rows.forEach(r -> assertThat(ids.add(r.getField("event_id").toString())).isTrue());
            }
            Set<String> onDisk = new HashSet<>();
            try (DuckDb duck = new DuckDb()) {
                for (var r :
                        duck.rows(
                                "select event_id from read_parquet('"
                                        + onDisk("warehouse/purchases")
                                        + "/*/*/*.parquet')")) {
                    onDisk.add((String) r.get("event_id"));
                }
            }
            assertThat(ids).isNotEmpty().isEqualTo(onDisk);

            // Late data re-compacts an hour: a second snapshot. Iceberg's reader reads the table
            // as of both, since on S3 the hour's replaced objects stay for the grace period.
            long before = table.currentSnapshot().snapshotId();
            LandingEdits.addLatePurchase(local, purchases, HOUR, "late-2");
            upload(local.resolve("raw/purchases/" + HOUR), "raw/purchases/" + HOUR);
            assertThat(onS3.pending(Optional.empty(), Optional.empty(), false))
                    .containsExactly(HOUR);
            assertThat(onS3.compact(HOUR, false).outcome())
                    .isEqualTo(HourCompactor.Outcome.COMPACTED);
            table.refresh();
            long after = table.currentSnapshot().snapshotId();
            assertThat(after).isNotEqualTo(before);
            Set<String> then = eventIds(IcebergGenerics.read(table).useSnapshot(before));
            Set<String> now = eventIds(IcebergGenerics.read(table).useSnapshot(after));
            assertThat(then).isEqualTo(ids).doesNotContain("late-2");
            Set<String> withLate = new HashSet<>(ids);
            withLate.add("late-2");
            assertThat(now).isEqualTo(withLate);
        }
    }

    private static Set<String> eventIds(IcebergGenerics.ScanBuilder scan) throws IOException {
        Set<String> ids = new HashSet<>();
        try (CloseableIterable<Record> rows = scan.select("event_id").build()) {
            rows.forEach(r -> assertThat(ids.add(r.getField("event_id").toString())).isTrue());
        }
        return ids;
    }

    /** Thrown from inside the compactor, like a process dying there. */
    private static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private long manifestRows(String hour) throws IOException {
        return WarehouseManifest.read(LakeFiles.resolve(lake, "warehouse/purchases/" + hour))
                .orElseThrow()
                .rows();
    }

    /** Rows of the hour's Parquet files named, read from S3Proxy's files by DuckDB. */
    private long rowsOnDisk(java.util.Set<String> names) throws Exception {
        Path dir = onDisk("warehouse/purchases/" + HOUR);
        try (DuckDb duck = new DuckDb()) {
            long rows = 0;
            for (String name : names) {
                if (name.endsWith(".parquet")) {
                    rows +=
                            duck.count(
                                    "select count(*) from read_parquet('"
                                            + dir.resolve(name)
                                            + "')");
                }
            }
            return rows;
        }
    }

    /** Uploads every file under {@code dir} to {@code <lake>/<prefix>/…}. */
    private void upload(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                LakeFiles.write(
                        LakeFiles.resolve(lake, prefix + "/" + dir.relativize(f)),
                        Files.readAllBytes(f));
            }
        }
    }

    /** The plain-file directory S3Proxy keeps {@code <lake>/<relative>} in. */
    private Path onDisk(String relative) {
        return S3.server().objectFile(lake.getPath().substring(1) + "/" + relative);
    }

    /** Every object under {@code <lake>/<relative>}, by relative name, with its SHA-256. */
    private Map<String, String> objects(String relative) throws IOException {
        Path dir = onDisk(relative);
        return Files.isDirectory(dir) ? files(dir) : Map.of();
    }

    private static Map<String, String> files(Path dir) throws IOException {
        Map<String, String> result = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = dir.relativize(f).toString();
                if (!name.startsWith(".") && !name.contains("/.")) {
                    result.put(name, io.sluice.lake.Sha256.hex(Files.readAllBytes(f)));
                }
            }
        }
        return result;
    }
}
