package io.sluice.compact;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An hour whose rows fit the memory budget: read on the compactor's threads, de-duplicated,
 * bucketed and sorted in memory. The fast path, and the one every small hour takes; {@link
 * SpilledHour} is the other.
 */
final class InMemoryHour {

    private InMemoryHour() {}

    /** Thrown by a read that takes the hour's rows over the memory budget. */
    private static final class OverBudget extends RuntimeException {
        OverBudget() {
            super("over the memory budget", null, false, false);
        }
    }

    /**
     * The hour's rows, read on {@code pool} (in order on this thread without one), or null as soon
     * as their {@link HourRows#footprint}s add up to more than {@code budget}: the rows read so far
     * are dropped, and every read still running stops at its next row.
     */
    static List<HourRows.Row> read(
            HourRows hourRows,
            List<HourRows.LandingFile> files,
            long landedRows,
            long budget,
            ExecutorService pool)
            throws IOException {
        AtomicLong held = new AtomicLong();
        List<Callable<List<HourRows.Row>>> reads = new ArrayList<>();
        for (HourRows.LandingFile file : files) {
            reads.add(
                    () -> {
                        List<HourRows.Row> fileRows =
                                new ArrayList<>((int) Math.min(file.rows(), 1 << 24));
                        hourRows.read(
                                file.uri(),
                                file.index(),
                                file.rows(),
                                row -> {
                                    if (held.addAndGet(HourRows.footprint(row)) > budget) {
                                        throw new OverBudget();
                                    }
                                    fileRows.add(row);
                                });
                        return fileRows;
                    });
        }
        List<List<HourRows.Row>> read;
        try {
            read = Tasks.runAll(pool, reads);
        } catch (OverBudget e) {
            return null;
        }
        List<HourRows.Row> rows = new ArrayList<>((int) Math.min(landedRows, 1 << 24));
        for (List<HourRows.Row> fileRows : read) {
            rows.addAll(fileRows);
        }
        return rows;
    }

    /**
     * De-duplicates and buckets the rows of an hour; each bucket is ranked and sorted when opened.
     */
    static SortedBuckets buckets(HourRows hourRows, int bucketCount, List<HourRows.Row> rows) {
        List<HourRows.Row> unique = hourRows.deduplicate(rows);
        List<List<HourRows.Row>> buckets = new ArrayList<>();
        for (int b = 0; b < bucketCount; b++) {
            buckets.add(new ArrayList<>());
        }
        for (HourRows.Row row : unique) {
            buckets.get(row.bucket).add(row);
        }
        return SortedBuckets.inMemory(buckets, hourRows);
    }
}
