package io.sluice.app;

import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.Maintenance;
import io.sluice.config.Durations;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.log.FeatureLogTable;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code sluice maintain}: Iceberg snapshot expiry and orphan-file removal, and each view's feature
 * log table brought up to the log's files.
 */
@Command(
        name = "maintain",
        mixinStandardHelpOptions = true,
        description = {
            "Expire the Iceberg tables' snapshots older than catalog.snapshot_retention (default"
                    + " 7d; the current snapshot always stays), and with them the metadata and"
                    + " superseded data files only they referenced; then delete the files in the"
                    + " tables' metadata directories that nothing references and that are older"
                    + " than that retention (at least an hour): what failed commits left. Each"
                    + " view's feature log table (feature_log_<view>) is first made the log's"
                    + " committed files, in one commit if they changed."
        })
final class MaintainCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Override
    public Integer call() throws Exception {
        SluiceConfig cfg = config.load();
        PrintWriter out = spec.commandLine().getOut();
        if (!cfg.catalog().isEnabled()) {
            out.println("maintain: no catalog (catalog.type is none): nothing to do");
            out.flush();
            return 0;
        }
        try (LakeCatalog catalog = LakeCatalog.open(cfg)) {
            Maintenance.maintain(
                            catalog,
                            cfg.tables(),
                            cfg.catalog().snapshotRetention(),
                            System.currentTimeMillis())
                    .forEach(
                            (table, done) ->
                                    out.printf(
                                            "maintain: %s: %d snapshots expired (older than %s),"
                                                    + " %d orphan metadata files removed%n",
                                            table,
                                            done.snapshotsExpired(),
                                            Durations.format(cfg.catalog().snapshotRetention()),
                                            done.orphansRemoved()));
            // Each view's feature log: its table made the log's committed files, then the same
            // upkeep.
            for (FeatureViewConfig view : cfg.featureViews()) {
                ViewDef def = ViewDef.of(view, cfg.table(view.source()).orElseThrow());
                FeatureLogTable.Upkept done =
                        FeatureLogTable.upkeep(
                                catalog,
                                def,
                                cfg.tablePath("features", view.name()),
                                cfg.catalog().snapshotRetention(),
                                System.currentTimeMillis());
                out.printf(
                        "maintain: feature log %s: %d files added, %d removed (table %s); %d"
                                + " snapshots expired, %d orphan metadata files removed%n",
                        view.name(),
                        done.synced().added(),
                        done.synced().removed(),
                        catalog.identifier(FeatureLogTable.name(def)),
                        done.maintained().snapshotsExpired(),
                        done.maintained().orphansRemoved());
            }
        }
        out.flush();
        return 0;
    }
}
