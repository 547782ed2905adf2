package io.sluice.features.training;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseHours;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Refuses warehouse hours a training set cannot trust: a landing hour still open, or complete but
 * not compacted (or re-opened since). Features computed from them would miss events.
 */
final class CompleteHours {

    private CompleteHours() {}

    /** Throws naming the hours of {@code table} in {@code hours} that are open or stale. */
    static void checkComplete(SluiceConfig config, TableConfig table, TreeSet<Long> hours)
            throws IOException {
        if (hours.isEmpty()) {
            return;
        }
        long hour = HourPartitioner.hourMillis();
        Path raw = Path.of(config.tablePath("raw", table.name()));
        List<String> open = new ArrayList<>();
        for (long h : hours) {
            Path dir = raw.resolve(HourPartitioner.partition(h));
            if (Files.isDirectory(dir) && !Files.exists(dir.resolve(HourManifest.NAME))) {
                open.add(HourPartitioner.partition(h));
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalStateException(
                    String.format(
                            "table %s: hour(s) %s are still open (no _SUCCESS in raw/): the"
                                    + " spine's times need events that may not have landed yet",
                            table.name(), summarise(open)));
        }
        List<String> stale =
                new WarehouseHours(table, Path.of(config.rootUri()))
                                .pending(
                                        Optional.of(hours.first()),
                                        Optional.of(hours.last() + hour),
                                        false)
                                .stream()
                                .filter(p -> hours.contains(HourPartitioner.parse(p)))
                                .toList();
        if (!stale.isEmpty()) {
            throw new IllegalStateException(
                    String.format(
                            "table %s: hour(s) %s are complete but not compacted (or changed"
                                    + " since): run `sluice compact` first",
                            table.name(), summarise(stale)));
        }
    }

    private static String summarise(List<String> partitions) {
        return partitions.size() <= 5
                ? String.join(", ", partitions)
                : String.join(", ", partitions.subList(0, 5))
                        + " and "
                        + (partitions.size() - 5)
                        + " more";
    }
}
