package io.sluice.app;

import io.sluice.catalog.LakeCatalog;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.WarehouseManifest;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The demo's check of its Iceberg catalog against the warehouse it describes. */
final class DemoIcebergCheck {

    private DemoIcebergCheck() {}

    /**
     * Whether each table's Iceberg table, in its current snapshot, holds exactly the warehouse's
     * files and rows, with one snapshot per compacted hour; the figures go to the summary.
     */
    static boolean matchesWarehouse(
            SluiceConfig config, Map<String, Object> summary, PrintStream out) throws IOException {
        long rows = 0;
        long snapshots = 0;
        boolean same = true;
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            for (TableConfig t : config.tables()) {
                org.apache.iceberg.Table table =
                        catalog.catalog().loadTable(catalog.identifier(t.name()));
                Set<String> files = new HashSet<>();
                try (var tasks = table.newScan().planFiles()) {
                    for (var task : tasks) {
                        files.add(URI.create(task.file().location()).getPath());
                        rows += task.file().recordCount();
                    }
                }
                Set<String> warehouse = new HashSet<>();
                List<WarehouseManifest> hours =
                        WarehouseManifest.readAll(config.tablePath("warehouse", t.name()));
                for (WarehouseManifest m : hours) {
                    URI hour =
                            LakeFiles.resolve(
                                    config.tablePath("warehouse", t.name()), m.partition());
                    m.files()
                            .forEach(
                                    f ->
                                            warehouse.add(
                                                    LakeFiles.resolve(hour, f.name()).getPath()));
                }
                long tableSnapshots = 0;
                for (var ignored : table.snapshots()) {
                    tableSnapshots++;
                }
                snapshots += tableSnapshots;
                same &= files.equals(warehouse) && tableSnapshots == hours.size();
            }
            summary.put(
                    "iceberg_tables",
                    catalog.catalog()
                            .listTables(
                                    org.apache.iceberg.catalog.Namespace.of(
                                            config.catalog().namespace()))
                            .size());
        }
        summary.put("iceberg_rows", rows);
        summary.put("iceberg_snapshots", snapshots);
        summary.put("iceberg_matches_warehouse", same);
        out.printf(
                "verify: Iceberg catalog %s: %,d rows, %d snapshots, files %s the warehouse's%n",
                config.catalog().sqlitePathOrUri(),
                rows,
                snapshots,
                same ? "are exactly" : "DIFFER from");
        return same;
    }
}
