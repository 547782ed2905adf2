package io.sluice.features.training;

import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.lake.HourPartitioner;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.io.InputFile;

/**
 * The bucket files of a view's warehouse hours as a training-set task reads them: from the snapshot
 * the plan read ({@link PlannedView#snapshot}), the one the artifact is addressed by, never from a
 * listing of the hour, which on an object store holds a superseded version's files next to the
 * current ones for a while. A file that is gone by the time it is read (its hour was compacted
 * again and the old version removed) fails the build rather than give an artifact other than its
 * digest says.
 */
final class HourFiles {

    private final PlannedView view;

    /** Per hour read so far, its files by bucket. */
    private final Map<Long, Map<Integer, WarehouseSnapshot.File>> hours = new HashMap<>();

    HourFiles(PlannedView view) {
        this.view = view;
    }

    /**
     * The file of {@code bucket} in the hour starting at {@code hourStart}, or null when that hour
     * held no file in the plan's snapshot (it held no event then) or no row in that bucket.
     */
    WarehouseSnapshot.File bucketFile(long hourStart, int bucket) {
        return hours.computeIfAbsent(
                        hourStart,
                        h -> {
                            Map<Integer, WarehouseSnapshot.File> files = new HashMap<>();
                            for (WarehouseSnapshot.File f :
                                    view.snapshot.hours().getOrDefault(h, List.of())) {
                                files.put(f.bucket(), f);
                            }
                            return files;
                        })
                .get(bucket);
    }

    /** Opens {@code file} of the hour starting at {@code hourStart} to read. */
    InputFile open(WarehouseSnapshot.File file, long hourStart) throws IOException {
        try {
            InputFile input = file.parquetInput();
            input.getLength(); // a local file's is read here: one that is gone fails now
            return input;
        } catch (FileNotFoundException | NoSuchFileException gone) {
            throw new IOException(
                    String.format(
                            "warehouse hour %s/%s changed since %s was read: its file %s is gone"
                                    + " (the hour was compacted again, and on a file: lake a"
                                    + " compaction replaces an hour's files at once); build"
                                    + " again%s",
                            view.table.name(),
                            HourPartitioner.partition(hourStart),
                            view.snapshot.describe(),
                            file.location(),
                            view.snapshot.pinned()
                                    ? " from a snapshot whose files are still there"
                                    : ""),
                    gone);
        }
    }
}
