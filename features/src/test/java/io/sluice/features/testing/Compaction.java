package io.sluice.features.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.compact.HourCompactor;
import io.sluice.config.CompactConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Compacts a table's landing hours as {@code sluice compact} does: with the configuration's
 * catalog, each hour is also committed to the table's Iceberg table, which the lake's readers plan
 * from.
 */
public final class Compaction {

    private Compaction() {}

    /** Compacts every pending hour of {@code table}, each of which must compact; returns them. */
    public static List<String> compactAll(SluiceConfig config, TableConfig table)
            throws IOException {
        try (LakeCatalog catalog = config.catalog().isEnabled() ? LakeCatalog.open(config) : null) {
            HourCompactor compactor =
                    new HourCompactor(
                            table,
                            config.rootUri(),
                            1,
                            HourCompactor.memoryBudget(CompactConfig.DEFAULTS, 1),
                            catalog == null ? null : new IcebergHours(catalog.table(table), table));
            List<String> pending = compactor.pending(Optional.empty(), Optional.empty(), false);
            for (String hour : pending) {
                assertThat(compactor.compact(hour, false).outcome())
                        .as("hour %s of %s", hour, table.name())
                        .isEqualTo(HourCompactor.Outcome.COMPACTED);
            }
            return pending;
        }
    }
}
