package io.sluice.compact.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compact.HourCompactor;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Compacts a table's landing hours as {@code sluice compact} does, checking each one compacts. */
public final class CompactedHours {

    private CompactedHours() {}

    /**
     * Compacts every pending hour of {@code table} ({@link io.sluice.compact.Compaction}), each of
     * which must compact; returns them.
     */
    public static List<String> compactAll(SluiceConfig config, TableConfig table)
            throws IOException {
        List<String> hours = new ArrayList<>();
        for (HourCompactor.Result r :
                io.sluice.compact.Compaction.compactPending(config, table, 1)) {
            assertThat(r.outcome())
                    .as("hour %s of %s", r.partition(), table.name())
                    .isEqualTo(HourCompactor.Outcome.COMPACTED);
            hours.add(r.partition());
        }
        return hours;
    }
}
