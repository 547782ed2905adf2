package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourManifest;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.LandingScan;
import io.sluice.lake.WarehouseHours;
import io.sluice.lake.WarehouseManifest;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The hours of one table in a data directory: landed (committed Avro data), complete (a landing
 * {@code _SUCCESS} that covers it) and compacted (a warehouse {@code _SUCCESS}, current or stale),
 * with their row counts, read from the files and manifests as the jobs left them.
 *
 * @param partition {@code dt=YYYY-MM-DD/hr=HH}
 * @param landedRows rows of the committed landing files
 * @param complete whether the landing manifest covers every committed file
 * @param compactedRows rows of the warehouse hour, or -1 if it has none
 * @param stale whether the warehouse hour was built from an older landing manifest
 */
record TableHours(
        String partition, long landedRows, boolean complete, long compactedRows, boolean stale) {

    boolean compacted() {
        return compactedRows >= 0;
    }

    /** Every hour of {@code table} under the config's storage root, oldest first. */
    static List<TableHours> scan(SluiceConfig config, TableConfig table) throws IOException {
        Map<String, TableHours> hours = new TreeMap<>();
        java.net.URI raw = config.tablePath("raw", table.name());
        for (LandingScan.Hour h :
                LandingScan.scan(
                        new org.apache.flink.core.fs.Path(config.tablePath("raw", table.name())))) {
            long rows = 0;
            for (HourManifest.DataFile f :
                    HourManifest.committedFiles(
                            new org.apache.flink.core.fs.Path(
                                    LakeFiles.resolve(raw, h.partition())))) {
                rows += f.rows();
            }
            hours.put(
                    h.partition(),
                    new TableHours(
                            h.partition(),
                            rows,
                            h.manifested() != null && !h.unpublished(),
                            -1,
                            false));
        }
        WarehouseHours warehouse = new WarehouseHours(table, config.rootUri());
        Set<String> pending =
                new HashSet<>(warehouse.pending(Optional.empty(), Optional.empty(), false));
        for (WarehouseManifest m :
                WarehouseManifest.readAll(config.tablePath("warehouse", table.name()))) {
            TableHours landed = hours.get(m.partition());
            hours.put(
                    m.partition(),
                    new TableHours(
                            m.partition(),
                            landed == null ? 0 : landed.landedRows(),
                            landed != null && landed.complete(),
                            m.rows(),
                            pending.contains(m.partition())));
        }
        return List.copyOf(hours.values());
    }
}
