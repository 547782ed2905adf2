package io.sluice.catalog;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.ParquetFiles;
import io.sluice.lake.WarehouseHours;
import io.sluice.lake.WarehouseManifest;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.parquet.io.InputFile;

/**
 * The warehouse hours of a table as Sluice's readers plan from them (the training-set builder,
 * {@code check}, the backfill): per hour, its bucket files.
 *
 * <ul>
 *   <li>With a catalog, from one snapshot of the table's Iceberg table: the current one, or one
 *       pinned by id, which reads the table as it was then (late data compacted since changes
 *       nothing). An hour whose {@code _SUCCESS} manifest lists other files than the current
 *       snapshot holds (a compaction that published but died before its commit) is {@link
 *       #uncommitted}: readers take it as not compacted.
 *   <li>Without a catalog, from the hours' {@code _SUCCESS} manifests.
 * </ul>
 *
 * Either way a reader never lists an hour's directory, which on an object store holds a superseded
 * version's files next to the current ones for a while.
 */
public final class WarehouseSnapshot implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final long HOUR = HourPartitioner.hourMillis();
    private static final long DAY = 24 * HOUR;

    /**
     * One bucket file of an hour.
     *
     * @param location its full location in the Hive layout
     */
    public record File(String location, int bucket, long rows, long bytes) implements Serializable {

        /**
         * The file as parquet-java reads it, with its length from the snapshot rather than asked of
         * the file system ({@link ParquetFiles#parquetInput(URI, long)}).
         */
        public InputFile parquetInput() throws IOException {
            return ParquetFiles.parquetInput(URI.create(location), bytes);
        }

        /** The file's name: the last segment of its location. */
        public String name() {
            return location.substring(location.lastIndexOf('/') + 1);
        }

        /** The bucket of a warehouse file named {@code <bucket, 6 digits>_0_<digest>.parquet}. */
        static int bucketOf(String location) {
            String name = location.substring(location.lastIndexOf('/') + 1);
            int end = name.indexOf('_');
            try {
                return Integer.parseInt(name.substring(0, end < 0 ? name.length() : end));
            } catch (NumberFormatException e) {
                throw new IllegalStateException(
                        "not a warehouse bucket file (<bucket>_0_<digest>.parquet): " + location);
            }
        }
    }

    private final String table;
    private final Long snapshotId; // null: read from the manifests, or an empty Iceberg table
    private final boolean pinned;
    private final TreeMap<Long, List<File>> hours;
    private final TreeSet<Long> uncommitted;
    private final long end;

    private WarehouseSnapshot(
            String table,
            Long snapshotId,
            boolean pinned,
            TreeMap<Long, List<File>> hours,
            TreeSet<Long> uncommitted,
            long end) {
        this.table = table;
        this.snapshotId = snapshotId;
        this.pinned = pinned;
        this.hours = hours;
        this.uncommitted = uncommitted;
        this.end = end;
    }

    /**
     * The hours of {@code table} that start in {@code [from, to)} (epoch millis).
     *
     * @param catalog the lake's catalog, null when it has none
     * @param pin a snapshot id to read, or empty for the current state
     * @throws IllegalArgumentException when a snapshot is pinned and there is no catalog, or the
     *     table has no such snapshot (the message names the table and its current snapshot)
     */
    public static WarehouseSnapshot read(
            LakeCatalog catalog,
            SluiceConfig config,
            TableConfig table,
            Optional<Long> pin,
            long from,
            long to)
            throws IOException {
        if (catalog == null) {
            if (pin.isPresent()) {
                throw new IllegalArgumentException(
                        "the lake has no catalog (catalog.type is none), so a table has no"
                                + " snapshots to pin");
            }
            return fromManifests(config, table, from, to);
        }
        IcebergHours iceberg = new IcebergHours(catalog.table(table), table);
        if (pin.isPresent()) {
            SortedMap<Long, List<DataFile>> all = iceberg.filesByHour(pin);
            long end = all.isEmpty() ? Long.MIN_VALUE : all.lastKey() + HOUR;
            return new WarehouseSnapshot(
                    table.name(),
                    pin.get(),
                    true,
                    files(all.subMap(from, Math.max(from, to))),
                    new TreeSet<>(),
                    end);
        }
        Optional<Long> current = iceberg.currentSnapshotId();
        TreeMap<Long, List<File>> hours =
                current.isEmpty() ? new TreeMap<>() : files(iceberg.filesByHour(current, from, to));
        TreeSet<Long> uncommitted = new TreeSet<>();
        WarehouseHours warehouse = new WarehouseHours(table, config.rootUri());
        for (WarehouseManifest m : manifests(warehouse.warehouseTable(), from, to)) {
            long hour = HourPartitioner.parse(m.partition());
            Set<String> published = new HashSet<>();
            URI dir = warehouse.warehouseHour(m.partition());
            m.files().forEach(f -> published.add(LakeFiles.resolve(dir, f.name()).toString()));
            Set<String> committed = new HashSet<>();
            hours.getOrDefault(hour, List.of()).forEach(f -> committed.add(f.location()));
            if (!published.equals(committed)) {
                uncommitted.add(hour);
            }
        }
        return new WarehouseSnapshot(
                table.name(), current.orElse(null), false, hours, uncommitted, Long.MIN_VALUE);
    }

    private static WarehouseSnapshot fromManifests(
            SluiceConfig config, TableConfig table, long from, long to) throws IOException {
        WarehouseHours warehouse = new WarehouseHours(table, config.rootUri());
        TreeMap<Long, List<File>> hours = new TreeMap<>();
        for (WarehouseManifest m : manifests(warehouse.warehouseTable(), from, to)) {
            URI dir = warehouse.warehouseHour(m.partition());
            List<File> files = new ArrayList<>();
            for (WarehouseManifest.BucketFile f : m.files()) {
                files.add(
                        new File(
                                LakeFiles.resolve(dir, f.name()).toString(),
                                f.bucket(),
                                f.rows(),
                                f.bytes()));
            }
            hours.put(HourPartitioner.parse(m.partition()), sorted(files));
        }
        return new WarehouseSnapshot(
                table.name(), null, false, hours, new TreeSet<>(), Long.MIN_VALUE);
    }

    private static TreeMap<Long, List<File>> files(Map<Long, List<DataFile>> byHour) {
        TreeMap<Long, List<File>> hours = new TreeMap<>();
        byHour.forEach(
                (hour, dataFiles) -> {
                    List<File> files = new ArrayList<>();
                    for (DataFile f : dataFiles) {
                        files.add(
                                new File(
                                        f.location(),
                                        File.bucketOf(f.location()),
                                        f.recordCount(),
                                        f.fileSizeInBytes()));
                    }
                    hours.put(hour, sorted(files));
                });
        return hours;
    }

    private static List<File> sorted(List<File> files) {
        files.sort(Comparator.comparingInt(File::bucket).thenComparing(File::location));
        return List.copyOf(files);
    }

    /**
     * The manifests of the hours of a warehouse table that start in {@code [from, to)}, in order.
     * Found by listing the days, and the hours of each day in the range, rather than by a request
     * per hour of the range, which a view's retention makes long (7 days: 168 hours, most of them
     * never landed).
     */
    private static List<WarehouseManifest> manifests(URI warehouseTable, long from, long to)
            throws IOException {
        List<WarehouseManifest> manifests = new ArrayList<>();
        for (LakeFiles.Entry day : LakeFiles.list(warehouseTable)) {
            Long dayStart = start(day, "dt=", day.name() + "/hr=00");
            if (dayStart == null || dayStart >= to || dayStart + DAY <= from) {
                continue;
            }
            for (LakeFiles.Entry hour : LakeFiles.list(day.uri())) {
                String partition = day.name() + "/" + hour.name();
                Long start = start(hour, "hr=", partition);
                if (start != null && start >= from && start < to) {
                    WarehouseManifest.read(hour.uri()).ifPresent(manifests::add);
                }
            }
        }
        manifests.sort(Comparator.comparing(WarehouseManifest::partition));
        return manifests;
    }

    /** The start of {@code partition} if {@code entry} is a directory named as one, else null. */
    private static Long start(LakeFiles.Entry entry, String prefix, String partition) {
        if (!entry.directory() || !entry.name().startsWith(prefix)) {
            return null;
        }
        try {
            return HourPartitioner.parse(partition);
        } catch (IllegalArgumentException | java.time.DateTimeException notAnHour) {
            return null;
        }
    }

    /** The table's name. */
    public String table() {
        return table;
    }

    /**
     * The Iceberg snapshot read; empty when the lake has no catalog, or its table has no snapshot
     * yet (then there is nothing to read).
     */
    public Optional<Long> snapshotId() {
        return Optional.ofNullable(snapshotId);
    }

    /** Whether a snapshot was pinned rather than the table read as it is now. */
    public boolean pinned() {
        return pinned;
    }

    /** The hours read that hold files, by start, each with its files by bucket. */
    public SortedMap<Long, List<File>> hours() {
        return java.util.Collections.unmodifiableSortedMap(hours);
    }

    /**
     * Hours whose {@code _SUCCESS} manifest lists files other than the current snapshot holds:
     * compacted, but not committed to the catalog (yet). Empty for a pinned snapshot and without a
     * catalog.
     */
    public SortedSet<Long> uncommitted() {
        return java.util.Collections.unmodifiableSortedSet(uncommitted);
    }

    /**
     * For a pinned snapshot, the end of the last hour it holds (over the whole table, not only the
     * hours read); {@link Long#MIN_VALUE} when it holds none, or none was pinned.
     */
    public long end() {
        return end;
    }

    /** What was read, for messages: {@code snapshot 123 of purchases} or the manifests. */
    public String describe() {
        return snapshotId == null
                ? "the _SUCCESS manifests of " + table
                : "snapshot " + snapshotId + " of " + table;
    }
}
