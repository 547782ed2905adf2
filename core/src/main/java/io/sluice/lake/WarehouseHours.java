package io.sluice.lake;

import io.sluice.config.TableConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A table's warehouse hours as the lake contract defines them: where each one lives, and whether it
 * is current, that is, built from the landing manifest the hour has now. Compaction, the backfill
 * and the training-set builder all ask this one question the same way.
 */
public final class WarehouseHours {

    private final URI rawTable;
    private final URI warehouseTable;

    /** On a local root. */
    public WarehouseHours(TableConfig table, Path root) {
        this(table, root.toUri());
    }

    /** On any root the lake runs on ({@code file:} or an object store). */
    public WarehouseHours(TableConfig table, URI root) {
        this.rawTable = LakeFiles.resolve(root, "raw/" + table.name());
        this.warehouseTable = LakeFiles.resolve(root, "warehouse/" + table.name());
    }

    /** {@code <root>/warehouse/<table>}. */
    public URI warehouseTable() {
        return warehouseTable;
    }

    /** {@code <root>/warehouse/<table>/<partition>}. */
    public URI warehouseHour(String partition) {
        return LakeFiles.resolve(warehouseTable, partition);
    }

    /** {@code <root>/raw/<table>/<partition>}. */
    public URI landingHour(String partition) {
        return LakeFiles.resolve(rawTable, partition);
    }

    /**
     * Complete landing hours in {@code [fromHour, toHour)} (epoch millis, either end open when
     * empty) whose warehouse hour is missing or was built from an older landing manifest; with
     * {@code force}, every complete hour in range. Sorted by partition.
     */
    public List<String> pending(Optional<Long> fromHour, Optional<Long> toHour, boolean force)
            throws IOException {
        List<String> pending = new ArrayList<>();
        for (String partition : completeHours()) {
            long start = HourPartitioner.parse(partition);
            if (fromHour.isPresent() && start < fromHour.get()
                    || toHour.isPresent() && start >= toHour.get()) {
                continue;
            }
            if (force || isStale(partition)) {
                pending.add(partition);
            }
        }
        return pending;
    }

    /** Landing partitions of this table that have a {@code _SUCCESS}, sorted. */
    public List<String> completeHours() throws IOException {
        List<String> hours = new ArrayList<>();
        for (LakeFiles.Entry day : LakeFiles.list(rawTable)) {
            if (!day.directory() || !day.name().startsWith("dt=")) {
                continue;
            }
            for (LakeFiles.Entry hour : LakeFiles.list(day.uri())) {
                if (hour.directory()
                        && hour.name().startsWith("hr=")
                        && LakeFiles.exists(LakeFiles.resolve(hour.uri(), HourManifest.NAME))) {
                    hours.add(day.name() + "/" + hour.name());
                }
            }
        }
        hours.sort(Comparator.naturalOrder());
        return hours;
    }

    private boolean isStale(String partition) throws IOException {
        Optional<WarehouseManifest> current = WarehouseManifest.read(warehouseHour(partition));
        return current.isEmpty()
                || !current.get()
                        .sourceManifestSha256()
                        .equals(
                                Sha256.hex(
                                        LakeFiles.read(
                                                LakeFiles.resolve(
                                                        landingHour(partition),
                                                        HourManifest.NAME))));
    }

    /**
     * The instant before which the warehouse holds every landed event of the table: the start of
     * the first landing hour that has files but is open (no manifest covering them, or files still
     * in progress) or is complete but not compacted from its current manifest; {@link
     * Long#MAX_VALUE} when there is none. A value computed from the warehouse at a time before this
     * is whole; at a later time it may not be.
     */
    public long completeUntil() throws IOException {
        Set<String> stale = new HashSet<>(pending(Optional.empty(), Optional.empty(), false));
        for (LandingScan.Hour h : LandingScan.scan(new org.apache.flink.core.fs.Path(rawTable))) {
            boolean writing = !h.leftovers().isEmpty();
            if (h.committed().isEmpty() && !writing) {
                continue; // nothing ever landed here
            }
            if (writing || h.unpublished() || stale.contains(h.partition())) {
                return h.hourStart();
            }
        }
        return Long.MAX_VALUE;
    }
}
