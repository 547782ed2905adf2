package io.sluice.features.log;

import io.sluice.catalog.CatalogUpkeep;
import io.sluice.catalog.FileMetrics;
import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.Maintenance;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.ViewDef;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A view's offline feature log as an Iceberg table, {@code <namespace>.feature_log_<view>}, over
 * the log's own Parquet files ({@code features/<view>/dt=/hr=/}, partitioned by {@code
 * hour(tile_start)}, sorted by entity, tile and version), its metadata under {@code
 * features/_iceberg/<view>}.
 *
 * <p>The features job writes the log through Flink's file sink, a few files per checkpoint, and a
 * backfill replaces an hour's files; an Iceberg commit per checkpoint would be one snapshot every
 * few seconds. Instead {@link #sync} makes the table's files the log's committed files in one
 * commit, and {@code sluice maintain} runs it, so the table trails the log by the time since the
 * last run.
 */
public final class FeatureLogTable {

    /** The table's name in the lake's namespace. */
    public static String name(ViewDef view) {
        return "feature_log_" + view.name();
    }

    private FeatureLogTable() {}

    /** The view's log table, created (empty) if the catalog has none yet. */
    public static Table table(LakeCatalog catalog, ViewDef view) {
        Schema schema = AvroSchemaUtil.toIceberg(FeatureLog.schema(view));
        return catalog.table(
                name(view),
                schema,
                PartitionSpec.builderFor(schema).hour("tile_start").build(),
                SortOrder.builderFor(schema).asc("entity").asc("tile_start").asc("version").build(),
                catalog.location("features", view.name()),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    }

    /** What one {@link #sync} changed. */
    public record Synced(int added, int removed) {}

    /**
     * Makes the table's current files exactly the log's committed Parquet files under {@code
     * logRoot} ({@code <storage.root>/features/<view>}), in one commit if anything differs. Files
     * the sink is still writing are hidden ({@code .}-prefixed) and left out.
     */
    public static Synced sync(LakeCatalog catalog, ViewDef view, URI logRoot) throws IOException {
        Table table = table(catalog, view);
        table.refresh();
        Map<String, DataFile> current = new HashMap<>();
        if (table.currentSnapshot() != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    current.put(task.file().location(), task.file());
                }
            }
        }
        Map<String, LakeFiles.Entry> onDisk = new HashMap<>();
        for (LakeFiles.Entry day : LakeFiles.list(logRoot)) {
            if (!day.directory() || !day.name().startsWith("dt=")) {
                continue;
            }
            for (LakeFiles.Entry hour : LakeFiles.list(day.uri())) {
                if (!hour.directory() || !hour.name().startsWith("hr=")) {
                    continue;
                }
                for (LakeFiles.Entry file : LakeFiles.list(hour.uri())) {
                    if (!file.directory()
                            && !file.name().startsWith(".")
                            && file.name().endsWith(".parquet")) {
                        onDisk.put(file.uri().toString(), file);
                    }
                }
            }
        }
        FileMetrics metrics = new FileMetrics(table);
        OverwriteFiles overwrite = table.newOverwrite();
        int added = 0;
        int removed = 0;
        for (var e : current.entrySet()) {
            if (!onDisk.containsKey(e.getKey())) {
                overwrite.deleteFile(e.getValue());
                removed++;
            }
        }
        for (var e : onDisk.entrySet()) {
            if (current.containsKey(e.getKey())) {
                continue;
            }
            LakeFiles.Entry file = e.getValue();
            String hourDir = file.uri().getPath();
            hourDir = hourDir.substring(0, hourDir.lastIndexOf('/'));
            String partition =
                    hourDir.substring(hourDir.lastIndexOf("/dt=") + 1); // dt=YYYY-MM-DD/hr=HH
            PartitionData hour = new PartitionData(table.spec().partitionType());
            hour.set(0, (int) TimeUnit.MILLISECONDS.toHours(HourPartitioner.parse(partition)));
            overwrite.addFile(
                    DataFiles.builder(table.spec())
                            .withPath(e.getKey())
                            .withFormat(FileFormat.PARQUET)
                            .withFileSizeInBytes(file.length())
                            .withMetrics(
                                    metrics.of(table.io().newInputFile(e.getKey(), file.length())))
                            .withPartition(hour)
                            .build());
            added++;
        }
        if (added + removed > 0) {
            overwrite.commit();
        }
        return new Synced(added, removed);
    }

    /** What one {@link #upkeep(LakeCatalog, ViewDef, URI, Duration, long)} did. */
    public record Upkept(Synced synced, Maintenance.Done maintained) {}

    /**
     * Syncs the view's log table ({@link #sync}), then expires its snapshots and removes its orphan
     * metadata files ({@link Maintenance#maintain(Table, Duration, long)}).
     */
    public static Upkept upkeep(
            LakeCatalog catalog, ViewDef view, URI logRoot, Duration retention, long now)
            throws IOException {
        Synced synced = sync(catalog, view, logRoot);
        return new Upkept(synced, Maintenance.maintain(table(catalog, view), retention, now));
    }

    /**
     * The upkeep of every feature view's log table in {@code config}, for the continuous compact
     * job ({@link CatalogUpkeep}): each run logs what changed.
     */
    public static CatalogUpkeep upkeep(SluiceConfig config) {
        List<ViewDef> views = new ArrayList<>();
        Map<String, String> logs = new HashMap<>();
        for (FeatureViewConfig view : config.featureViews()) {
            views.add(ViewDef.of(view, config.table(view.source()).orElseThrow()));
            logs.put(view.name(), config.tablePath("features", view.name()).toString());
        }
        return (catalog, retention, now) -> {
            for (ViewDef view : views) {
                Upkept done =
                        upkeep(catalog, view, URI.create(logs.get(view.name())), retention, now);
                if (done.synced().added() + done.synced().removed() > 0
                        || done.maintained().snapshotsExpired() > 0) {
                    LOG.info(
                            "Feature log table {}: {} files added, {} removed; {} snapshots"
                                    + " expired, {} orphan metadata files removed",
                            name(view),
                            done.synced().added(),
                            done.synced().removed(),
                            done.maintained().snapshotsExpired(),
                            done.maintained().orphansRemoved());
                }
            }
        };
    }

    private static final Logger LOG = LoggerFactory.getLogger(FeatureLogTable.class);
}
