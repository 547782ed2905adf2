package io.sluice.features.backfill;

import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.ParquetFiles;
import io.sluice.lake.Publish;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import org.apache.parquet.hadoop.ParquetFileReader;

/**
 * Publishes a backfilled feature log hour by hour, and an hour the backfill has no rows for is
 * removed.
 *
 * <ul>
 *   <li>On a {@code file:} root each hour of the range is swapped in whole for what the streaming
 *       job wrote there ({@link AtomicDirectories#replace}): a reader of one hour sees the old set
 *       or the new one, never a mix. It publishes through the lake's one protocol ({@link
 *       Publish}): displaced hours stay under {@code _staging/backfill} for {@link
 *       Publish#TRASH_GRACE}; the next backfill deletes them.
 *   <li>On an object store, which cannot swap a directory, the new files are moved into the hour
 *       (each a copy and a delete of one object; their names are the run's own) and then the old
 *       ones are deleted: a reader listing the hour in between sees both. The feature log has no
 *       manifest and no Sluice reader: it is for users' queries, which should not run over the
 *       hours of a backfill while it publishes.
 * </ul>
 */
final class LogPartitions {

    /** What publishing one view's log did. */
    record Published(int hoursWritten, int hoursRemoved, long rows) {}

    private LogPartitions() {}

    /** A run's name: when it started, so that its age can be read on any store, and a nonce. */
    static String runName() {
        return System.currentTimeMillis() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Replaces the hours {@code hours} of {@code target} (the view's {@code features/<view>}) by
     * those of {@code staged}; on a file system displaced hours go under {@code trash}.
     */
    static Published publish(URI staged, URI target, List<String> hours, URI trash)
            throws IOException {
        checkInRange(staged, hours);
        boolean swap = LakeFiles.supportsAtomicRename(target);
        int written = 0;
        int removed = 0;
        long rows = 0;
        for (String hour : hours) {
            URI from = LakeFiles.resolve(staged, hour);
            URI to = LakeFiles.resolve(target, hour);
            List<LakeFiles.Entry> files = parquetFiles(from);
            if (!files.isEmpty()) {
                rows += rows(files);
                if (swap) {
                    Publish.replace(from, to, LakeFiles.resolve(trash, hour.replace('/', '_')));
                } else {
                    moveInto(files, to);
                }
                written++;
            } else if (swap
                    ? Publish.retire(to, LakeFiles.resolve(trash, hour.replace('/', '_')))
                    : LakeFiles.delete(to, true)) {
                removed++;
            }
        }
        return new Published(written, removed, rows);
    }

    /** Moves {@code files} into {@code hour}, then deletes what the hour held before. */
    private static void moveInto(List<LakeFiles.Entry> files, URI hour) throws IOException {
        List<LakeFiles.Entry> old = LakeFiles.list(hour);
        for (LakeFiles.Entry f : files) {
            LakeFiles.move(f.uri(), LakeFiles.resolve(hour, f.name()));
        }
        for (LakeFiles.Entry f : old) {
            LakeFiles.delete(f.uri(), true);
        }
    }

    private static List<LakeFiles.Entry> parquetFiles(URI hour) throws IOException {
        return LakeFiles.list(hour).stream()
                .filter(e -> !e.directory())
                .filter(e -> e.name().endsWith(".parquet") && !e.name().startsWith("."))
                .toList();
    }

    /** Rows of the Parquet files of one hour, from their footers. */
    static long rows(URI hour) throws IOException {
        return rows(parquetFiles(hour));
    }

    private static long rows(List<LakeFiles.Entry> files) throws IOException {
        long rows = 0;
        for (LakeFiles.Entry file : files) {
            try (ParquetFileReader reader =
                    ParquetFiles.openParquet(
                            ParquetFiles.parquetInput(file.uri(), file.length()))) {
                rows += reader.getRecordCount();
            }
        }
        return rows;
    }

    /** Tiles divide hours, so the batch cannot log a tile outside the hours it read. */
    private static void checkInRange(URI staged, List<String> hours) throws IOException {
        for (LakeFiles.Entry day : LakeFiles.list(staged)) {
            if (!day.directory() || !day.name().startsWith("dt=")) {
                continue;
            }
            for (LakeFiles.Entry hour : LakeFiles.list(day.uri())) {
                String partition = day.name() + "/" + hour.name();
                if (hour.directory() && hour.name().startsWith("hr=")) {
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

    /**
     * Deletes staging runs and displaced hours older than {@link Publish#TRASH_GRACE}: by their
     * modification time on a file system, by the start time in their name ({@link #runName}) on an
     * object store, where a prefix has no time of its own.
     */
    static void removeLeftovers(URI stagingRoot) throws IOException {
        if (LakeFiles.supportsAtomicRename(stagingRoot)) {
            Publish.removeExpired(stagingRoot, name -> true);
            return;
        }
        long graceStart = System.currentTimeMillis() - Publish.TRASH_GRACE.toMillis();
        for (LakeFiles.Entry run : LakeFiles.list(stagingRoot)) {
            int dash = run.name().indexOf('-');
            if (dash > 0
                    && run.name().substring(0, dash).chars().allMatch(Character::isDigit)
                    && Long.parseLong(run.name().substring(0, dash)) < graceStart) {
                LakeFiles.delete(run.uri(), true);
            }
        }
    }
}
