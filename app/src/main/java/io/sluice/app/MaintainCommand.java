package io.sluice.app;

import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.Maintenance;
import io.sluice.config.Durations;
import io.sluice.config.SluiceConfig;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code sluice maintain}: Iceberg snapshot expiry and orphan-file removal. */
@Command(
        name = "maintain",
        mixinStandardHelpOptions = true,
        description = {
            "Expire the Iceberg tables' snapshots older than catalog.snapshot_retention (default"
                    + " 7d; the current snapshot always stays), and with them the metadata and"
                    + " superseded data files only they referenced; then delete the files in the"
                    + " tables' metadata directories that nothing references and that are older"
                    + " than that retention (at least an hour): what failed commits left."
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
            Map<String, Integer> expired =
                    Maintenance.expireSnapshots(
                            catalog,
                            cfg.tables(),
                            cfg.catalog().snapshotRetention(),
                            System.currentTimeMillis());
            Map<String, Integer> orphans =
                    Maintenance.removeOrphanFiles(
                            catalog,
                            cfg.tables(),
                            cfg.catalog().snapshotRetention(),
                            System.currentTimeMillis());
            expired.forEach(
                    (table, n) ->
                            out.printf(
                                    "maintain: %s: %d snapshots expired (older than %s), %d orphan"
                                            + " metadata files removed%n",
                                    table,
                                    n,
                                    Durations.format(cfg.catalog().snapshotRetention()),
                                    orphans.get(table)));
        }
        out.flush();
        return 0;
    }
}
