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

    /** What one table's upkeep did. */
    public record Done(int snapshotsExpired, int orphansRemoved) {}

    /** {@link #maintain(Table, Duration, long)} of every warehouse table, by table name. */
    public static Map<String, Done> maintain(
            LakeCatalog catalog, List<TableConfig> tables, Duration retention, long nowMillis)
            throws IOException {
        Map<String, Done> done = new LinkedHashMap<>();
        for (TableConfig config : tables) {
            done.put(config.name(), maintain(catalog.table(config), retention, nowMillis));
        }
        return done;
    }

    /**
     * Expires {@code table}'s snapshots older than the retention, then removes its orphan metadata
     * files older than that ({@link #removeOrphanFiles}).
     */
    public static Done maintain(Table table, Duration retention, long nowMillis)
            throws IOException {
        return new Done(
                expireSnapshots(table, retention, nowMillis),
                removeOrphanFiles(table, retention, nowMillis));
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
     * Deletes the files in {@code table}'s metadata directory that no metadata file, snapshot,
     * manifest list, manifest or statistics file of the table names, and that are older than the
     * retention (at least {@link #ORPHAN_MIN_AGE}): what commits that failed or lost a race, or a
     * process that died before its commit, left behind. The data files are the warehouse's own,
     * kept by its manifests and the compaction's grace period, and are never touched here.
     *
     * @return the number of files deleted
     */
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
