package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction publishing each hour to the table's Iceberg table, read back by Iceberg's reader. */
class IcebergCompactTest {

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");
    private static final String HOUR_3 = "dt=2026-11-21/hr=03";
    private static final String HOUR_4 = "dt=2026-11-21/hr=04";

    @TempDir Path root;

    private TableConfig purchases;
    private LakeCatalog catalog;
    private Table table;

    @BeforeEach
    void landTwoHours() throws IOException {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        purchases = config.table("purchases").orElseThrow();
        LandingHours.write(
                root,
                purchases,
                GeneratorOptions.defaults(2_000, 7)
                        .withStart(START)
                        .withSpan(Duration.ofHours(2))
                        .withRates(0.05, 0, 0),
                2,
                true);
        catalog =
                LakeCatalog.open(
                        io.sluice.config.CatalogConfig.sqlite(root.resolve("catalog.db")),
                        root.toUri());
        table = catalog.table(purchases);
    }

    @AfterEach
    void close() throws IOException {
        catalog.close();
    }

    private HourCompactor compactor(boolean withCatalog) {
        return HourCompactor.builder(purchases, root.toUri())
                .iceberg(withCatalog ? new IcebergHours(table, purchases) : null)
                .build();
    }

    @Test
    void eachCompactedHourIsOneSnapshotHoldingExactlyTheWarehouseRows() throws Exception {
        HourCompactor compactor = compactor(true);
        compactor.compact(HOUR_3, false);
        compactor.compact(HOUR_4, false);
        // A re-run over unchanged input commits nothing.
        assertThat(compactor.compact(HOUR_3, false).outcome())
                .isEqualTo(HourCompactor.Outcome.UP_TO_DATE);
        assertThat(compactor.compact(HOUR_4, true).outcome())
                .isEqualTo(HourCompactor.Outcome.COMPACTED);

        table.refresh();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        assertThat(snapshots)
                .extracting(s -> s.summary().get(IcebergHours.PARTITION))
                .containsExactly(HOUR_3, HOUR_4);
        assertThat(ids(table, null)).isEqualTo(warehouseIds());
        assertThat(dataFiles()).isEqualTo(warehouseFiles());
    }

    @Test
    void lateDataIsANewSnapshotOfItsHourAndTheOldOneStaysReadable() throws Exception {
        HourCompactor compactor = compactor(true);
        compactor.compact(HOUR_3, false);
        compactor.compact(HOUR_4, false);
        table.refresh();
        long before = table.currentSnapshot().snapshotId();
        Set<String> idsBefore = ids(table, null);

        LandingEdits.addLatePurchase(root, purchases, HOUR_3, "late-1");
        assertThat(compactor.compact(HOUR_3, false).outcome())
                .isEqualTo(HourCompactor.Outcome.COMPACTED);

        table.refresh();
        assertThat(table.currentSnapshot().parentId()).isEqualTo(before);
        assertThat(table.currentSnapshot().summary())
                .containsEntry(IcebergHours.PARTITION, HOUR_3)
                .containsEntry(
                        IcebergHours.LANDING_DIGEST,
                        WarehouseManifest.read(root.resolve("warehouse/purchases/" + HOUR_3))
                                .orElseThrow()
                                .sourceManifestSha256());
        assertThat(ids(table, null)).contains("late-1").isEqualTo(warehouseIds());
        assertThat(dataFiles()).isEqualTo(warehouseFiles());
        assertThat(table.snapshot(before)).isNotNull();
        assertThat(idsBefore).doesNotContain("late-1");
    }

    @Test
    void anHourPublishedButNotCommittedIsCommittedByTheNextRun() throws Exception {
        // The crash: published in the Hive layout, the commit never made.
        compactor(false).compact(HOUR_3, false);
        table.refresh();
        assertThat(table.currentSnapshot()).isNull();

        HourCompactor withCatalog = compactor(true);
        // Hour 3 is listed though its warehouse hour is up to date: the table lacks it.
        assertThat(withCatalog.pending(Optional.empty(), Optional.empty(), false))
                .contains(HOUR_3, HOUR_4);
        assertThat(compactor(false).pending(Optional.empty(), Optional.empty(), false))
                .doesNotContain(HOUR_3)
                .contains(HOUR_4);
        assertThat(withCatalog.compact(HOUR_3, false).outcome())
                .isEqualTo(HourCompactor.Outcome.UP_TO_DATE);
        assertThat(withCatalog.pending(Optional.empty(), Optional.empty(), false))
                .doesNotContain(HOUR_3)
                .contains(HOUR_4);

        table.refresh();
        assertThat(table.snapshots()).hasSize(1);
        assertThat(ids(table, null)).isEqualTo(warehouseIds());
    }

    private Set<String> ids(Table t, Long snapshot) throws IOException {
        Set<String> ids = new HashSet<>();
        var scan = IcebergGenerics.read(t).select("event_id");
        if (snapshot != null) {
            scan = scan.useSnapshot(snapshot);
        }
        try (CloseableIterable<Record> rows = scan.build()) {
            for (Record r : rows) {
                assertThat(ids.add(r.getField("event_id").toString())).isTrue();
            }
        }
        return ids;
    }

    private Set<String> warehouseIds() throws IOException {
        Set<String> ids = new HashSet<>();
        try (io.sluice.testing.DuckDb duck = new io.sluice.testing.DuckDb()) {
            for (var r :
                    duck.rows(
                            "select event_id from read_parquet('"
                                    + root.resolve("warehouse/purchases")
                                    + "/*/*/*.parquet')")) {
                ids.add((String) r.get("event_id"));
            }
        } catch (Exception e) {
            throw new IOException(e);
        }
        return ids;
    }

    private Set<String> dataFiles() throws IOException {
        Set<String> files = new HashSet<>();
        try (var tasks = table.newScan().planFiles()) {
            tasks.forEach(
                    t -> files.add(Path.of(java.net.URI.create(t.file().location())).toString()));
        }
        return files;
    }

    private Set<String> warehouseFiles() throws IOException {
        Set<String> files = new HashSet<>();
        for (WarehouseManifest m : WarehouseManifest.readAll(root.resolve("warehouse/purchases"))) {
            m.files()
                    .forEach(
                            f ->
                                    files.add(
                                            root.resolve("warehouse/purchases")
                                                    .resolve(m.partition())
                                                    .resolve(f.name())
                                                    .toString()));
        }
        return files;
    }
}
