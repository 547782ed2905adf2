package io.sluice.features.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.catalog.CatalogUpkeep;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.CatalogConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.testing.ParquetFiles;
import io.sluice.lake.HourPartitioner;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A view's feature log made an Iceberg table over its own files, in one commit per change. */
class FeatureLogTableTest {

    private static final long HOUR_3 = Instant.parse("2026-11-21T03:00:00Z").toEpochMilli();
    private static final long HOUR_4 = HOUR_3 + 3_600_000L;

    @TempDir Path root;

    @Test
    void theTableHoldsExactlyTheLogsCommittedFilesAndFollowsTheirChanges() throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        ViewDef view = userPurchases(config);
        Path log = root.resolve("features").resolve(view.name());
        Path first = write(log, view, HOUR_3, "part-0-0.parquet", "u1", "u2");
        write(log, view, HOUR_4, "part-0-1.parquet", "u3");
        // A file the sink is still writing.
        Files.writeString(
                first.resolveSibling(".part-1-0.parquet.inprogress.42"), "not parquet yet");

        try (LakeCatalog catalog =
                LakeCatalog.open(CatalogConfig.sqlite(root.resolve("catalog.db")), root.toUri())) {
            assertThat(FeatureLogTable.sync(catalog, view, log.toUri()))
                    .isEqualTo(new FeatureLogTable.Synced(2, 0));
            Table table = FeatureLogTable.table(catalog, view);
            assertThat(table.name()).endsWith("feature_log_user_purchases");
            assertThat(table.location())
                    .isEqualTo(root.toUri() + "/features/_iceberg/user_purchases");
            assertThat(entities(table)).containsExactlyInAnyOrder("u1@3", "u2@3", "u3@4");
            // The hour partitions prune: a filter on one hour plans its file only.
            assertThat(
                            table.newScan()
                                    .filter(
                                            Expressions.greaterThanOrEqual(
                                                    "tile_start", HOUR_4 * 1000))
                                    .planFiles())
                    .hasSize(1);

            // Unchanged: nothing to commit.
            assertThat(FeatureLogTable.sync(catalog, view, log.toUri()))
                    .isEqualTo(new FeatureLogTable.Synced(0, 0));
            table.refresh();
            long before = table.currentSnapshot().snapshotId();
            assertThat(table.snapshots()).hasSize(1);

            // A backfill replaced hour 3's file: one commit swaps them.
            Files.delete(first);
            write(log, view, HOUR_3, "part-7-0.parquet", "u9");
            assertThat(FeatureLogTable.sync(catalog, view, log.toUri()))
                    .isEqualTo(new FeatureLogTable.Synced(1, 1));
            table.refresh();
            assertThat(table.snapshots()).hasSize(2);
            assertThat(entities(table)).containsExactlyInAnyOrder("u9@3", "u3@4");
            assertThat(table.currentSnapshot().parentId()).isEqualTo(before);
        }
    }

    /** Writes a log file of one row per entity, each a one-event tile at the hour's start. */
    /**
     * The upkeep the app hands the continuous compact job, shipped to its task as Java
     * serialization does: it brings every view's log table up to the view's log.
     */
    @Test
    void theCompactJobsUpkeepBringsEveryViewsLogTableUpToItsLog() throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        ViewDef purchases = userPurchases(config);
        write(
                root.resolve("features").resolve(purchases.name()),
                purchases,
                HOUR_3,
                "p.parquet",
                "u7");
        CatalogUpkeep upkeep =
                InstantiationUtil.clone(
                        FeatureLogTable.upkeep(config), getClass().getClassLoader());
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            upkeep.run(catalog, Duration.ofDays(7), System.currentTimeMillis());
            for (FeatureViewConfig view : config.featureViews()) {
                ViewDef def = ViewDef.of(view, config.table(view.source()).orElseThrow());
                Table table = FeatureLogTable.table(catalog, def);
                table.refresh();
                assertThat(entities(table))
                        .as(view.name())
                        .isEqualTo(def.name().equals(purchases.name()) ? Set.of("u7@3") : Set.of());
            }
        }
    }

    private static ViewDef userPurchases(SluiceConfig config) {
        return ViewDef.of(
                config.featureView("user_purchases").orElseThrow(),
                config.table("purchases").orElseThrow());
    }

    private static Path write(Path log, ViewDef view, long hour, String name, String... entities)
            throws IOException {
        Path dir = log.resolve(HourPartitioner.partition(hour));
        Files.createDirectories(dir);
        List<GenericRecord> rows = new ArrayList<>();
        for (String entity : entities) {
            Tile tile = new Tile(hour);
            Object[] values = new Object[view.fields().size()];
            tile.add(new EventEntry(hour + 1_000, entity + "-e", values));
            rows.add(FeatureLog.row(FeatureLog.schema(view), view, entity, tile));
        }
        return ParquetFiles.write(dir.resolve(name), FeatureLog.schema(view), rows);
    }

    /** Each row's entity and the hour of its tile, read by Iceberg's own reader. */
    private static Set<String> entities(Table table) throws IOException {
        Set<String> found = new HashSet<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            for (Record r : rows) {
                java.time.OffsetDateTime start =
                        (java.time.OffsetDateTime) r.getField("tile_start");
                found.add(r.getField("entity") + "@" + start.getHour());
            }
        }
        return found;
    }
}
