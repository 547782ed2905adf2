package io.sluice.compact;

import io.sluice.catalog.CatalogUpkeep;
import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.Maintenance;
import io.sluice.compact.CompactJob.HourTask;
import io.sluice.config.CatalogConfig;
import io.sluice.config.TableConfig;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists the hours to compact, for every table, on each trigger. In the continuous job it also
 * maintains the tables' Iceberg side, as {@code sluice maintain} does: it expires snapshots older
 * than {@code catalog.snapshot_retention} on its first trigger and then once per retention, at
 * least hourly, and runs the upkeep it is given (the feature logs' tables, from the app). Expiry
 * commits retry on conflict with the hours' commits, like those do.
 */
final class PlanHours extends RichFlatMapFunction<Long, HourTask> {
    private static final Logger LOG = LoggerFactory.getLogger(PlanHours.class);

    private static final Duration MAINTENANCE_AT_LEAST_EVERY = Duration.ofHours(1);

    private final Map<String, TableConfig> tables;
    private final String root;
    private final Long fromHour;
    private final Long toHour;
    private final boolean force;
    private final CatalogConfig catalogConfig;
    private final boolean maintain;
    private final CatalogUpkeep upkeep;
    private transient List<HourCompactor> compactors;
    private transient LakeCatalog catalog;
    private transient long lastMaintenance;

    /**
     * {@code fromHour} and {@code toHour} are epoch millis, or null for an open end. With a
     * catalog, an hour published but not committed to it (a compaction that died between the two)
     * is listed too. With {@code maintain}, the catalog's snapshots are expired and orphans
     * removed, and {@code upkeep} keeps up what else it holds (the feature logs' tables).
     */
    PlanHours(
            Map<String, TableConfig> tables,
            String root,
            Long fromHour,
            Long toHour,
            boolean force,
            CatalogConfig catalogConfig,
            boolean maintain,
            CatalogUpkeep upkeep) {
        this.tables = tables;
        this.root = root;
        this.fromHour = fromHour;
        this.toHour = toHour;
        this.force = force;
        this.catalogConfig = catalogConfig;
        this.maintain = maintain;
        this.upkeep = upkeep;
    }

    @Override
    public void open(OpenContext context) throws IOException {
        catalog =
                catalogConfig.isEnabled()
                        ? LakeCatalog.open(catalogConfig, URI.create(root))
                        : null;
        compactors = new ArrayList<>();
        tables.values().forEach(t -> compactors.add(HourCompactor.planner(t, root, catalog)));
        lastMaintenance = Long.MIN_VALUE;
    }

    @Override
    public void close() throws IOException {
        if (catalog != null) {
            catalog.close();
        }
    }

    @Override
    public void flatMap(Long trigger, Collector<HourTask> out) throws Exception {
        maintain(System.currentTimeMillis());
        for (HourCompactor compactor : compactors) {
            for (String partition :
                    compactor.pending(
                            Optional.ofNullable(fromHour), Optional.ofNullable(toHour), force)) {
                out.collect(new HourTask(compactor.table().name(), partition));
            }
        }
    }

    /**
     * Expires old snapshots and removes orphan metadata files when the last maintenance is a
     * retention (at most an hour) ago.
     */
    private void maintain(long now) {
        Duration every = catalogConfig.snapshotRetention();
        if (every.compareTo(MAINTENANCE_AT_LEAST_EVERY) > 0) {
            every = MAINTENANCE_AT_LEAST_EVERY;
        }
        if (catalog == null
                || !maintain
                || lastMaintenance != Long.MIN_VALUE && now - lastMaintenance < every.toMillis()) {
            return;
        }
        lastMaintenance = now;
        try {
            Maintenance.maintain(
                            catalog,
                            List.copyOf(tables.values()),
                            catalogConfig.snapshotRetention(),
                            now)
                    .forEach(
                            (table, done) -> {
                                if (done.snapshotsExpired() > 0) {
                                    LOG.info(
                                            "Expired {} Iceberg snapshots of {}",
                                            done.snapshotsExpired(),
                                            table);
                                }
                                if (done.orphansRemoved() > 0) {
                                    LOG.info(
                                            "Removed {} orphan Iceberg files of {}",
                                            done.orphansRemoved(),
                                            table);
                                }
                            });
            upkeep.run(catalog, catalogConfig.snapshotRetention(), now);
        } catch (RuntimeException | java.io.IOException e) {
            // Compaction goes on; the next maintenance tries again.
            LOG.warn("Iceberg table maintenance failed; trying again in {}", every, e);
        }
    }
}
