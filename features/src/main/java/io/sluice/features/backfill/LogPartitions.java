package io.sluice.features.backfill;

import io.sluice.lake.HourPartitioner;
import io.sluice.lake.Publish;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * Publishes a backfilled feature log hour by hour: each hour of the range is swapped in whole for
 * what the streaming job wrote there ({@link AtomicDirectories#replace}), and an hour the backfill
 * has no rows for is removed. A reader of one hour sees the old set or the new one, never a mix.
 *
 * <p>It publishes through the lake's one protocol ({@link Publish}): displaced hours stay under
 * {@code _staging/backfill} for {@link Publish#TRASH_GRACE}; the next backfill deletes them.
 */
final class LogPartitions {

    /** What publishing one view's log did. */
    record Published(int hoursWritten, int hoursRemoved, long rows) {}

    private LogPartitions() {}

    /**
     * Replaces the hours {@code hours} of {@code target} (the view's {@code features/<view>}) by
     * those of {@code staged}; displaced hours go under {@code trash}.
     */
    static Published publish(Path staged, Path target, List<String> hours, Path trash)
            throws IOException {
        checkInRange(staged, hours);
        int written = 0;
        int removed = 0;
        long rows = 0;
        for (String hour : hours) {
            Path from = staged.resolve(hour);
            Path to = target.resolve(hour);
            Path displaced = trash.resolve(hour.replace('/', '_'));
            if (Files.isDirectory(from)) {
                rows += rows(from);
                Publish.replace(from, to, displaced);
                written++;
            } else if (Publish.retire(to, displaced)) {
                removed++;
            }
        }
        return new Published(written, removed, rows);
    }

    /** Rows of the Parquet files of one hour, from their footers. */
    static long rows(Path hour) throws IOException {
        long rows = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(hour, "*.parquet")) {
            for (Path file : files) {
                try (ParquetFileReader reader =
                        ParquetFileReader.open(
                                new LocalInputFile(file),
                                ParquetReadOptions.builder(new PlainParquetConfiguration())
                                        .build())) {
                    rows += reader.getRecordCount();
                }
            }
        }
        return rows;
    }

    /** Tiles divide hours, so the batch cannot log a tile outside the hours it read. */
    private static void checkInRange(Path staged, List<String> hours) throws IOException {
        if (!Files.isDirectory(staged)) {
            return;
        }
        try (Stream<Path> dirs = Files.walk(staged, 2)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                String partition = staged.relativize(dir).toString();
                if (partition.startsWith("dt=") && partition.contains("/")) {
                    HourPartitioner.parse(partition);
                    if (!hours.contains(partition)) {
                        throw new IllegalStateException(
                                "the backfill logged tiles of "
                                        + partition
                                        + ", outside its range");
                    }
                }
            }
        }
    }

    /** Deletes staging runs and displaced hours older than {@link Publish#TRASH_GRACE}. */
    static void removeLeftovers(Path stagingRoot) throws IOException {
        Publish.removeExpired(stagingRoot, name -> true);
    }
}
