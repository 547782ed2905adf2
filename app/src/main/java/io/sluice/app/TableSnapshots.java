package io.sluice.app;

import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.TableConfig;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** {@code sluice describe}'s part on a table's Iceberg table and its snapshots. */
final class TableSnapshots {

    private TableSnapshots() {}

    /**
     * The table's Iceberg table: its name and snapshots in commit order (id, commit time, the hour
     * committed), the last one current, or null without a catalog. A table not created yet has
     * none; describing it does not create it.
     */
    static Map<String, Object> describe(LakeCatalog catalog, TableConfig t) {
        if (catalog == null) {
            return null;
        }
        Map<String, Object> iceberg = new LinkedHashMap<>();
        var id = catalog.identifier(t.name());
        iceberg.put("table", id.toString());
        List<Object> snapshots = new ArrayList<>();
        if (catalog.catalog().tableExists(id)) {
            Table table = catalog.catalog().loadTable(id);
            List<Snapshot> all = new ArrayList<>();
            table.snapshots().forEach(all::add);
            all.sort(
                    Comparator.comparingLong(Snapshot::sequenceNumber)
                            .thenComparingLong(Snapshot::timestampMillis));
            for (Snapshot snapshot : all) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("id", snapshot.snapshotId());
                one.put(
                        "committed_at",
                        Instant.ofEpochMilli(snapshot.timestampMillis()).toString());
                one.put("partition", snapshot.summary().get(IcebergHours.PARTITION));
                snapshots.add(one);
            }
            iceberg.put(
                    "current",
                    table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId());
        }
        iceberg.put("snapshots", snapshots);
        return iceberg;
    }

    /** Prints what {@link #describe} gave, every snapshot when {@code everySnapshot}. */
    @SuppressWarnings("unchecked")
    static void print(Map<String, Object> iceberg, boolean everySnapshot, PrintWriter out) {
        if (iceberg != null) {
            List<Object> snapshots = (List<Object>) iceberg.get("snapshots");
            out.printf(
                    "  iceberg table %s: %d snapshots%s%n",
                    iceberg.get("table"),
                    snapshots.size(),
                    iceberg.get("current") == null ? "" : ", current " + iceberg.get("current"));
            if (everySnapshot) {
                for (Object so : snapshots) {
                    Map<String, Object> snapshot = (Map<String, Object>) so;
                    out.printf(
                            "    snapshot %-20s %-24s %s%n",
                            snapshot.get("id"),
                            snapshot.get("committed_at"),
                            snapshot.get("partition"));
                }
            }
        }
    }
}
