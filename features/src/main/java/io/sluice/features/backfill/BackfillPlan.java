package io.sluice.features.backfill;

import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.WarehouseHours;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a backfill of {@code [from, to)} reads, and the check that it may run at all: every landing
 * hour of a view's source table in range that exists is complete, and its warehouse copy is
 * compacted and current. Otherwise the warehouse is not the event set the streaming job saw, and
 * the backfill would write a feature log that disagrees with it.
 *
 * @param root the local directory of {@code storage.root}
 * @param fromHour first hour, epoch millis (inclusive)
 * @param to end, epoch millis (exclusive): the hours that start before it
 * @param hours the partitions of the range, {@code dt=…/hr=…}, in order
 * @param files per source table, the Parquet files its warehouse manifests list in range, with
 *     their lengths
 * @param rows per source table, the rows of those files (as their manifests count them)
 */
public record BackfillPlan(
        URI root,
        long fromHour,
        long to,
        List<String> hours,
        Map<String, List<WarehouseSnapshot.File>> files,
        Map<String, Long> rows) {

    /**
     * Plans a backfill, or fails naming everything that stands in its way.
     *
     * @throws IllegalArgumentException if the range, the storage root, a view's tile or the lake's
     *     state does not allow a backfill
     */
    public static BackfillPlan of(SluiceConfig config, Instant from, Instant to)
            throws IOException {
        return of(config, from, to, Instant.now());
    }

    static BackfillPlan of(SluiceConfig config, Instant from, Instant to, Instant now)
            throws IOException {
        long fromHour = HourPartitioner.hourStart(from.toEpochMilli());
        long end = to.toEpochMilli();
        if (fromHour >= end) {
            throw new IllegalArgumentException("--from " + from + " must be before --to " + to);
        }
        checkOver(config, end, now);
        URI root = config.rootUri();
        List<String> hours = new ArrayList<>();
        for (long h = fromHour; h < end; h += HourPartitioner.hourMillis()) {
            hours.add(HourPartitioner.partition(h));
        }
        List<String> problems = new ArrayList<>();
        Map<String, TableConfig> tables = new LinkedHashMap<>();
        for (FeatureViewConfig view : config.featureViews()) {
            if (HourPartitioner.hourMillis() % view.tile().toMillis() != 0) {
                problems.add(
                        "feature view "
                                + view.name()
                                + ": its tile "
                                + view.tile()
                                + " does not divide an hour, so its tiles cross the hours a"
                                + " backfill replaces");
            }
            tables.put(view.source(), config.table(view.source()).orElseThrow());
        }
        Map<String, List<WarehouseSnapshot.File>> files = new LinkedHashMap<>();
        Map<String, Long> rows = new LinkedHashMap<>();
        List<String> incomplete = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        try (LakeCatalog catalog = config.catalog().isEnabled() ? LakeCatalog.open(config) : null) {
            for (TableConfig table : tables.values()) {
                for (String hour : hours) {
                    URI landing = warehouse(table, root).landingHour(hour);
                    if (LakeFiles.exists(landing)
                            && !LakeFiles.exists(LakeFiles.resolve(landing, HourManifest.NAME))) {
                        incomplete.add(table.name() + " " + hour);
                    }
                }
                WarehouseHours warehouse = warehouse(table, root);
                warehouse
                        .pending(Optional.of(fromHour), Optional.of(end), false)
                        .forEach(hour -> stale.add(table.name() + " " + hour));
                // The hours' files from one snapshot of the table (or their manifests, without a
                // catalog); an hour compacted but not committed to it is not compacted yet.
                WarehouseSnapshot snapshot =
                        WarehouseSnapshot.read(
                                catalog, config, table, Optional.empty(), fromHour, end);
                snapshot.uncommitted().stream()
                        .map(h -> table.name() + " " + HourPartitioner.partition(h))
                        .filter(h -> !stale.contains(h))
                        .forEach(stale::add);
                List<WarehouseSnapshot.File> tableFiles = new ArrayList<>();
                long tableRows = 0;
                for (List<WarehouseSnapshot.File> hourFiles : snapshot.hours().values()) {
                    for (WarehouseSnapshot.File f : hourFiles) {
                        tableFiles.add(f);
                        tableRows += f.rows();
                    }
                }
                rows.put(table.name(), tableRows);
                files.put(table.name(), tableFiles);
            }
        }
        if (!incomplete.isEmpty()) {
            problems.add(
                    "landing hours not complete yet (no _SUCCESS): "
                            + String.join(", ", incomplete));
        }
        if (!stale.isEmpty()) {
            problems.add(
                    "hours not compacted, or compacted from an older landing manifest: "
                            + String.join(", ", stale)
                            + " (run: sluice compact --from "
                            + Instant.ofEpochMilli(fromHour)
                            + " --to "
                            + to
                            + ")");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "--backfill: cannot backfill ["
                            + Instant.ofEpochMilli(fromHour)
                            + ", "
                            + to
                            + "):\n  "
                            + String.join("\n  ", problems));
        }
        return new BackfillPlan(root, fromHour, end, List.copyOf(hours), files, rows);
    }

    /**
     * Refuses hours that are not over, allowed lateness included: a source table without a landing
     * hour yet would read as an hour without events, and its log would be removed.
     */
    private static void checkOver(SluiceConfig config, long end, Instant now) {
        long lastHourEnd = HourPartitioner.hourStart(end - 1) + HourPartitioner.hourMillis();
        for (FeatureViewConfig view : config.featureViews()) {
            TableConfig table = config.table(view.source()).orElseThrow();
            long over = lastHourEnd + table.allowedLateness().toMillis();
            if (over > now.toEpochMilli()) {
                throw new IllegalArgumentException(
                        "--to "
                                + Instant.ofEpochMilli(end)
                                + ": the hour ending "
                                + Instant.ofEpochMilli(lastHourEnd)
                                + " is not over until "
                                + Instant.ofEpochMilli(over)
                                + " (allowed_lateness of "
                                + table.name()
                                + "); backfill only hours the streaming job has finished");
            }
        }
    }

    private static WarehouseHours warehouse(TableConfig table, URI root) {
        return new WarehouseHours(table, root);
    }

    /** The range as {@code [from, to)} instants, for messages. */
    public String range() {
        return "[" + Instant.ofEpochMilli(fromHour) + ", " + Instant.ofEpochMilli(to) + ")";
    }
}
