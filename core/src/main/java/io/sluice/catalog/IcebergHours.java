package io.sluice.catalog;

import io.sluice.config.TableConfig;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;

/**
 * Publishes warehouse hours to a table's Iceberg table: after an hour's files are published in the
 * Hive layout, one commit makes exactly those files the hour's partition (the files the table had
 * there and the hour no longer has are removed, the new ones added), with the landing manifest's
 * digest in the snapshot summary. An hour whose partition already holds exactly its files commits
 * nothing, so a re-run over unchanged input leaves the table's history as it was, and a run after a
 * crash between the publish and the commit catches the table up.
 *
 * <p>Commits of different hours never conflict: each one removes only files of its own partition,
 * and a commit that loses the race to the catalog is retried on the new metadata by Iceberg (up to
 * {@link IcebergTableSpec#COMMIT_RETRIES} times). A commit that finds data of its own hour added
 * since it looked fails instead of overwriting it.
 */
public final class IcebergHours {

    /** Snapshot summary keys of an hour's commit. */
    public static final String LANDING_DIGEST = "sluice.landing-digest";

    public static final String PARTITION = "sluice.partition";

    /** A published data file of an hour: its full location, size, rows and column metrics. */
    public record HourFile(String location, long bytes, Metrics metrics) {}

    private final Table table;
    private final String name;
    private final String eventTime;
    private final FileMetrics fileMetrics;

    public IcebergHours(Table table, TableConfig config) {
        this.table = table;
        this.name = config.name();
        this.eventTime = config.eventTime();
        this.fileMetrics = new FileMetrics(table);
    }

    public Table table() {
        return table;
    }

    /** The column metrics of a local Parquet file, with columns matched by name. */
    public Metrics metrics(Path parquetFile) {
        return metrics(org.apache.iceberg.Files.localInput(parquetFile.toFile()));
    }

    /** The column metrics of a Parquet file the table's file IO can read. */
    public Metrics metrics(InputFile parquetFile) {
        return fileMetrics.of(parquetFile);
    }

    /** Reads the metrics of a published file at {@code location}. */
    public HourFile published(String location, long bytes) {
        return new HourFile(location, bytes, metrics(table.io().newInputFile(location, bytes)));
    }

    /**
     * Makes {@code files} the hour's partition in one commit, unless it holds exactly them.
     *
     * @param partition {@code dt=YYYY-MM-DD/hr=HH}
     * @param landingDigest the digest of the landing manifest the files were compacted from
     * @return the new snapshot's id, or empty if nothing was committed
     */
    public Optional<Long> commit(String partition, String landingDigest, List<HourFile> files) {
        long hourStart = HourPartitioner.parse(partition);
        int hourOrdinal = (int) TimeUnit.MILLISECONDS.toHours(hourStart);
        Expression hourRange = hourRange(hourStart);
        table.refresh();
        Snapshot base = table.currentSnapshot();
        Map<String, DataFile> current = filesOf(hourStart);
        Map<String, HourFile> wanted = new HashMap<>();
        files.forEach(f -> wanted.put(f.location(), f));
        if (current.keySet().equals(wanted.keySet())) {
            return Optional.empty();
        }
        OverwriteFiles overwrite = table.newOverwrite();
        current.forEach(
                (location, file) -> {
                    if (!wanted.containsKey(location)) {
                        overwrite.deleteFile(file);
                    }
                });
        PartitionData hour = new PartitionData(table.spec().partitionType());
        hour.set(0, hourOrdinal);
        wanted.forEach(
                (location, file) -> {
                    if (!current.containsKey(location)) {
                        overwrite.addFile(
                                DataFiles.builder(table.spec())
                                        .withPath(location)
                                        .withFormat(FileFormat.PARQUET)
                                        .withFileSizeInBytes(file.bytes())
                                        .withMetrics(file.metrics())
                                        .withPartition(hour)
                                        .withSortOrder(table.sortOrder())
                                        .build());
                    }
                });
        if (base != null) {
            overwrite.validateFromSnapshot(base.snapshotId());
        }
        overwrite
                .conflictDetectionFilter(hourRange)
                .validateNoConflictingData()
                .validateNoConflictingDeletes()
                .set(LANDING_DIGEST, landingDigest)
                .set(PARTITION, partition)
                .commit();
        return Optional.of(table.currentSnapshot().snapshotId());
    }

    /** The data files of the hour in the current snapshot, by location. */
    public Map<String, DataFile> filesOf(String partition) {
        long hourStart = HourPartitioner.parse(partition);
        table.refresh();
        return filesOf(hourStart);
    }

    /**
     * The data files' locations of every hour in the current snapshot, by partition ({@code
     * dt=YYYY-MM-DD/hr=HH}).
     */
    public Map<String, Set<String>> filesByPartition() {
        table.refresh();
        Map<String, Set<String>> files = new HashMap<>();
        filesByHour(Optional.empty(), Expressions.alwaysTrue())
                .forEach(
                        (hour, list) -> {
                            Set<String> locations = new HashSet<>();
                            list.forEach(f -> locations.add(f.location()));
                            files.put(HourPartitioner.partition(hour), locations);
                        });
        return files;
    }

    /**
     * The data files of the hours starting in {@code [from, to)} (epoch millis) in snapshot {@code
     * snapshotId}, or in the current one when empty, by hour start. Refreshes the table first.
     *
     * @throws IllegalArgumentException naming the table when it has no snapshot of that id (never
     *     had one, or it expired)
     */
    public SortedMap<Long, List<DataFile>> filesByHour(
            Optional<Long> snapshotId, long from, long to) {
        table.refresh();
        if (from >= to) {
            return new TreeMap<>();
        }
        // Whole hours, so that no file of an hour in range is pruned by its statistics.
        long first = HourPartitioner.hourStart(from);
        long end = HourPartitioner.hourStart(to - 1) + HourPartitioner.hourMillis();
        return filesByHour(snapshotId, timeRange(first, end)).subMap(from, to);
    }

    /**
     * The data files of every hour in snapshot {@code snapshotId} (or the current one), by hour
     * start. Refreshes the table first.
     */
    public SortedMap<Long, List<DataFile>> filesByHour(Optional<Long> snapshotId) {
        table.refresh();
        return filesByHour(snapshotId, Expressions.alwaysTrue());
    }

    /** The id of the table's current snapshot, empty when nothing was ever committed. */
    public Optional<Long> currentSnapshotId() {
        table.refresh();
        return Optional.ofNullable(table.currentSnapshot()).map(Snapshot::snapshotId);
    }

    private SortedMap<Long, List<DataFile>> filesByHour(
            Optional<Long> snapshotId, Expression filter) {
        SortedMap<Long, List<DataFile>> files = new TreeMap<>();
        TableScan scan = table.newScan();
        if (snapshotId.isPresent()) {
            if (table.snapshot(snapshotId.get()) == null) {
                throw new IllegalArgumentException(
                        String.format(
                                "table %s has no snapshot %d (its current one is %s; snapshots"
                                        + " older than catalog.snapshot_retention are expired)",
                                name,
                                snapshotId.get(),
                                table.currentSnapshot() == null
                                        ? "none"
                                        : table.currentSnapshot().snapshotId()));
            }
            scan = scan.useSnapshot(snapshotId.get());
        } else if (table.currentSnapshot() == null) {
            return files;
        }
        try (CloseableIterable<FileScanTask> tasks =
                scan.filter(filter).ignoreResiduals().planFiles()) {
            for (FileScanTask task : tasks) {
                Integer hour = task.file().partition().get(0, Integer.class);
                if (hour != null) {
                    files.computeIfAbsent(TimeUnit.HOURS.toMillis(hour), h -> new ArrayList<>())
                            .add(task.file().copyWithoutStats());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The data files of the hour starting at {@code hourStart} in the current snapshot. */
    private Map<String, DataFile> filesOf(long hourStart) {
        Map<String, DataFile> files = new HashMap<>();
        filesByHour(Optional.empty(), hourRange(hourStart))
                .getOrDefault(hourStart, List.of())
                .forEach(f -> files.put(f.location(), f));
        return files;
    }

    private Expression hourRange(long hourStartMillis) {
        return timeRange(hourStartMillis, hourStartMillis + HourPartitioner.hourMillis());
    }

    /** Event times in {@code [from, to)}, epoch millis. */
    private Expression timeRange(long from, long to) {
        return Expressions.and(
                Expressions.greaterThanOrEqual(eventTime, TimeUnit.MILLISECONDS.toMicros(from)),
                Expressions.lessThan(eventTime, TimeUnit.MILLISECONDS.toMicros(to)));
    }
}
