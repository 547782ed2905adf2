package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseHours;
import io.sluice.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How far the warehouse is whole, as the consistency check asks before it samples a time. */
class WarehouseHoursTest {

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");
    private static final long LATER = Instant.parse("2026-11-21T09:00:00Z").toEpochMilli();

    @TempDir Path root;

    @Test
    void shouldBeWholeUntilTheFirstHourThatIsOpenOrNotCompacted() throws Exception {
        TableConfig purchases =
                TestConfigs.shop(root, "localhost:1", "t").table("purchases").orElseThrow();
        var landed =
                LandingHours.write(
                        root,
                        purchases,
                        GeneratorOptions.defaults(400, 3)
                                .withStart(START)
                                .withSpan(Duration.ofHours(2)),
                        1,
                        false);
        WarehouseHours hours = new WarehouseHours(purchases, root);
        long first = HourPartitioner.parse(new java.util.TreeSet<>(landed.keySet()).first());
        assertThat(hours.completeUntil()).as("complete, not compacted").isEqualTo(first);

        HourCompactor compactor = new HourCompactor(purchases, root);
        for (String partition : compactor.pending(Optional.empty(), Optional.empty(), false)) {
            compactor.compact(partition, false);
        }
        assertThat(hours.completeUntil()).isEqualTo(Long.MAX_VALUE);

        // The next hour is being written: only an in-progress file so far.
        Path open = Files.createDirectories(root.resolve("raw/purchases/dt=2026-11-21/hr=09"));
        Path inProgress = open.resolve(".part-a-0.avro.inprogress.b");
        Files.write(inProgress, new byte[] {1});
        assertThat(hours.completeUntil()).isEqualTo(LATER);

        // Committed, and no manifest yet.
        Path committed = open.resolve("part-a-0.avro");
        Files.move(inProgress, committed);
        assertThat(hours.completeUntil()).isEqualTo(LATER);

        // A directory with nothing in it holds no events.
        Files.delete(committed);
        assertThat(hours.completeUntil()).isEqualTo(Long.MAX_VALUE);
    }
}
