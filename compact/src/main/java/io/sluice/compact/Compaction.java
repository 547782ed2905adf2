package io.sluice.compact;

import io.sluice.catalog.LakeCatalog;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Compaction in this thread, without a Flink job, as {@code sluice compact} does it: every pending
 * hour of a table, each also committed to the configuration's catalog when it has one, so the
 * lake's readers (which plan from the catalog's snapshots) see it. For benchmarks and tests that
 * build a lake quickly.
 */
public final class Compaction {

    private Compaction() {}

    /** Compacts every pending hour of {@code table} on {@code threads} threads, in order. */
    public static List<HourCompactor.Result> compactPending(
            SluiceConfig config, TableConfig table, int threads) throws IOException {
        try (LakeCatalog catalog = config.catalog().isEnabled() ? LakeCatalog.open(config) : null) {
            HourCompactor compactor =
                    HourCompactor.builder(table, config.rootUri())
                            .threads(threads)
                            .memoryBudget(HourCompactor.memoryBudget(config.compact(), 1))
                            .catalog(catalog)
                            .build();
            List<HourCompactor.Result> results = new ArrayList<>();
            for (String hour : compactor.pending(Optional.empty(), Optional.empty(), false)) {
                results.add(compactor.compact(hour, false));
            }
            return results;
        }
    }
}
