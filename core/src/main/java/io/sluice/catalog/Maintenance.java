package io.sluice.catalog;

import io.sluice.config.TableConfig;
import io.sluice.lake.LakeFiles;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;

/**
 * The lake's Iceberg tables' upkeep: snapshot expiry and orphan-file removal. Snapshots older than
 * the configured retention expire, always keeping the current one. Iceberg then deletes what only
 * the expired snapshots referenced: their manifests and the data files they alone named, which are
 * the hours' superseded files that the warehouse has already moved out of its directories (or
 * tombstoned, on an object store).
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
            expired.put(
                    config.name(), expireSnapshots(catalog.table(config), retention, nowMillis));
        }
        return expired;
    }

    /** Expires {@code table}'s snapshots older than {@code now - retention}; returns how many. */
    public static int expireSnapshots(Table table, Duration retention, long nowMillis) {
        int before = count(table);
        if (table.currentSnapshot() != null) {
            table.expireSnapshots()
                    .expireOlderThan(nowMillis - retention.toMillis())
                    .retainLast(1)
                    .commit();
            table.refresh();
        }
        return before - count(table);
    }

    /**
     * Orphan files are only removed once they are this old, whatever the retention: a commit in
     * flight writes its manifests and metadata before the catalog names them.
     */
    public static final Duration ORPHAN_MIN_AGE = Duration.ofHours(1);

    /**
     * Deletes the files in each table's metadata directory that no metadata file, snapshot,
     * manifest list, manifest or statistics file of the table names, and that are older than the
     * retention (at least {@link #ORPHAN_MIN_AGE}): what commits that failed or lost a race, or a
     * process that died before its commit, left behind. The data files are the warehouse's own,
     * kept by its manifests and the compaction's grace period, and are never touched here.
     *
     * @return the number of files deleted, by table
     */
    public static Map<String, Integer> removeOrphanFiles(
            LakeCatalog catalog, List<TableConfig> tables, Duration retention, long nowMillis)
            throws IOException {
        Map<String, Integer> removed = new LinkedHashMap<>();
        for (TableConfig config : tables) {
            removed.put(
                    config.name(), removeOrphanFiles(catalog.table(config), retention, nowMillis));
        }
        return removed;
    }

    /** {@link #removeOrphanFiles(LakeCatalog, List, Duration, long)} of one table. */
    public static int removeOrphanFiles(Table table, Duration retention, long nowMillis)
            throws IOException {
        long olderThan = nowMillis - Math.max(retention.toMillis(), ORPHAN_MIN_AGE.toMillis());
        table.refresh();
        Set<String> referenced = new HashSet<>();
        ReachableFileUtil.metadataFileLocations(table, true).forEach(f -> referenced.add(key(f)));
        ReachableFileUtil.manifestListLocations(table).forEach(f -> referenced.add(key(f)));
        ReachableFileUtil.statisticsFilesLocations(table).forEach(f -> referenced.add(key(f)));
        for (Snapshot snapshot : table.snapshots()) {
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                referenced.add(key(manifest.path()));
            }
        }
        String metadataDir =
                table.properties()
                        .getOrDefault(
                                TableProperties.WRITE_METADATA_LOCATION,
                                table.location() + "/metadata");
        int deleted = 0;
        for (LakeFiles.Entry entry : LakeFiles.list(URI.create(metadataDir))) {
            if (!entry.directory()
                    && entry.modified() < olderThan
                    && !referenced.contains(key(entry.uri().toString()))) {
                table.io().deleteFile(entry.uri().toString());
                deleted++;
            }
        }
        return deleted;
    }

    /** A location without its scheme's spelling ({@code file:/a} and {@code file:///a} agree). */
    private static String key(String location) {
        URI uri = URI.create(location).normalize();
        return (uri.getAuthority() == null ? "" : uri.getAuthority()) + uri.getPath();
    }

    private static int count(Table table) {
        int n = 0;
        for (var ignored : table.snapshots()) {
            n++;
        }
        return n;
    }
}
