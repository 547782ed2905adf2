package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.generate.GeneratorStats;
import io.sluice.lake.WarehouseManifest;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;

/**
 * The demo's last check: what landed, what went to the dead-letter topics and what was compacted,
 * against what the generator produced; with the stages' own figures already in the summary (the
 * online store's entities, the consistency check, the training set) and the Iceberg tables ({@link
 * DemoIcebergCheck}), it decides the summary's {@code ok}.
 */
final class DemoVerify {

    private DemoVerify() {}

    /**
     * Counts the landing zone, the dead letters and the warehouse into {@code summary} and prints
     * the verify line; returns whether every count holds.
     *
     * @param validEntities the entities of the generator's valid records
     * @param spineRows the rows of the demo's example spine
     */
    static boolean verify(
            SluiceConfig config,
            GeneratorStats generated,
            long validEntities,
            long spineRows,
            Map<String, Object> summary,
            PrintStream out)
            throws IOException {
        long rows = 0;
        long misplaced = 0;
        long complete = 0;
        long hours = 0;
        for (TableConfig t : config.tables()) {
            LandingStats s = LandingStats.scan(config.tablePath("raw", t.name()), t.eventTime());
            rows += s.rows();
            misplaced += s.misplacedRows();
            complete += s.completeHours();
            hours += s.hours();
        }
        long deadLetters =
                DeadLetterCount.count(
                        config.kafka().bootstrap(),
                        config.tables().stream()
                                .map(t -> DeadLetterSerializer.topicFor(t.topic()))
                                .toList());
        summary.put("raw_rows", rows);
        summary.put("raw_rows_outside_partition_hour", misplaced);
        summary.put("dlq_rows", deadLetters);
        summary.put("hours_landed", hours);
        summary.put("hours_complete", complete);
        long warehouseRows = 0;
        long warehouseHours = 0;
        long duplicatesRemoved = 0;
        for (TableConfig t : config.tables()) {
            for (WarehouseManifest m :
                    WarehouseManifest.readAll(config.tablePath("warehouse", t.name()))) {
                warehouseRows += m.rows();
                duplicatesRemoved += m.duplicatesRemoved();
                warehouseHours++;
            }
        }
        summary.put("warehouse_rows", warehouseRows);
        summary.put("warehouse_hours", warehouseHours);
        summary.put("warehouse_duplicates_removed", duplicatesRemoved);
        boolean icebergOk =
                !config.catalog().isEnabled()
                        || DemoIcebergCheck.matchesWarehouse(config, summary, out);
        boolean ok =
                icebergOk
                        && rows == generated.valid()
                        && deadLetters == generated.invalid()
                        && misplaced == 0
                        && complete == hours
                        && warehouseHours == complete
                        && warehouseRows + duplicatesRemoved == rows
                        && summary.get("online_entities").equals(validEntities)
                        && summary.get("consistency_mismatches").equals(0L)
                        && (long) summary.get("consistency_checked") >= 1_000
                        && summary.get("training_set_rows").equals(spineRows);
        out.printf(
                "verify: raw rows %,d (valid generated %,d), dead letters %,d (invalid generated"
                        + " %,d), %d/%d hours complete, %d rows outside their hour, warehouse"
                        + " %,d rows in %d hours -> %s%n",
                rows,
                generated.valid(),
                deadLetters,
                generated.invalid(),
                complete,
                hours,
                misplaced,
                warehouseRows,
                warehouseHours,
                ok ? "OK" : "MISMATCH");
        return ok;
    }
}
