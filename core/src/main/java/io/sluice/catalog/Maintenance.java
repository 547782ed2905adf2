package io.sluice.catalog;

import io.sluice.config.TableConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * Expires the snapshots of the lake's Iceberg tables older than the configured retention, always
 * keeping the current one. Iceberg then deletes what only the expired snapshots referenced: their
 * manifests and the data files they alone named, which are the hours' superseded files that the
 * warehouse has already moved out of its directories (or tombstoned, on an object store).
 */
public final class Maintenance {

    private Maintenance() {}

    /**
     * Expires every table's snapshots older than {@code now - retention}.
     *
     * @return the number of snapshots expired, by table
     */
    public static Map<String, Integer> expireSnapshots(
            LakeCatalog catalog, List<TableConfig> tables, Duration retention, long nowMillis) {
        Map<String, Integer> expired = new LinkedHashMap<>();
        for (TableConfig config : tables) {
            Table table = catalog.table(config);
            int before = count(table);
            if (table.currentSnapshot() != null) {
                table.expireSnapshots()
                        .expireOlderThan(nowMillis - retention.toMillis())
                        .retainLast(1)
                        .commit();
                table.refresh();
            }
            expired.put(config.name(), before - count(table));
        }
        return expired;
    }

    private static int count(Table table) {
        int n = 0;
        for (var ignored : table.snapshots()) {
            n++;
        }
        return n;
    }
}
