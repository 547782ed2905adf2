package io.sluice.features.training;

import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.WarehouseManifest;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bucket files of a view's warehouse hours as a training-set task reads them: from each hour's
 * manifest, the very one the plan addressed the artifact by ({@link TrainingPlan.View#manifests}),
 * never from a listing of the hour, which on an object store holds a superseded version's files
 * next to the current ones for a while. An hour whose manifest changed since the plan (compacted
 * again) fails the build rather than give an artifact other than its digest says.
 */
final class HourFiles {

    private final TrainingPlan.View view;

    /** Per hour read so far, its files by bucket. */
    private final Map<Long, Map<Integer, URI>> hours = new HashMap<>();

    HourFiles(TrainingPlan.View view) {
        this.view = view;
    }

    /**
     * The hours of a warehouse table that have a directory (on an object store, a prefix) and start
     * in {@code [from, to)}, in order: those that may have a manifest. Found by listing the days,
     * and the hours of each day in the range, rather than by a request per hour of the range, which
     * a view's retention makes long (7 days: 168 hours, most of them never landed).
     */
    static List<String> partitions(URI warehouseTable, long from, long to) throws IOException {
        List<String> partitions = new ArrayList<>();
        for (LakeFiles.Entry day : LakeFiles.list(warehouseTable)) {
            Long dayStart = start(day, "dt=", day.name() + "/hr=00");
            if (dayStart == null || dayStart >= to || dayStart + DAY <= from) {
                continue;
            }
            for (LakeFiles.Entry hour : LakeFiles.list(day.uri())) {
                String partition = day.name() + "/" + hour.name();
                Long start = start(hour, "hr=", partition);
                if (start != null && start >= from && start < to) {
                    partitions.add(partition);
                }
            }
        }
        return partitions;
    }

    private static final long DAY = 24 * HourPartitioner.hourMillis();

    /** The start of {@code partition} if {@code entry} is a directory named as one, else null. */
    private static Long start(LakeFiles.Entry entry, String prefix, String partition) {
        if (!entry.directory() || !entry.name().startsWith(prefix)) {
            return null;
        }
        try {
            return HourPartitioner.parse(partition);
        } catch (IllegalArgumentException | java.time.DateTimeException notAnHour) {
            return null;
        }
    }

    /** The bytes of the manifest of {@code partition} of a warehouse table, or null if none. */
    static byte[] manifest(URI warehouseTable, String partition) throws IOException {
        try {
            return LakeFiles.read(
                    LakeFiles.resolve(warehouseTable, partition + "/" + WarehouseManifest.NAME));
        } catch (FileNotFoundException none) {
            return null;
        }
    }

    /**
     * The file of {@code bucket} in the hour starting at {@code hourStart}, or null when that hour
     * had no manifest when the build was planned (it held no event then) or no row in that bucket.
     */
    URI bucketFile(long hourStart, int bucket) throws IOException {
        String planned = view.manifests.get(hourStart);
        if (planned == null) {
            return null;
        }
        Map<Integer, URI> files = hours.get(hourStart);
        if (files == null) {
            String partition = HourPartitioner.partition(hourStart);
            byte[] bytes = manifest(view.warehouse, partition);
            if (bytes == null || !planned.equals(ArtifactStore.sha256(bytes))) {
                throw new IOException(
                        String.format(
                                "warehouse hour %s/%s changed while the training set was built"
                                        + " (it was compacted again): build it again",
                                view.table.name(), partition));
            }
            URI dir = LakeFiles.resolve(view.warehouse, partition);
            files = new HashMap<>();
            for (WarehouseManifest.BucketFile f : WarehouseManifest.parse(bytes).files()) {
                files.put(f.bucket(), LakeFiles.resolve(dir, f.name()));
            }
            hours.put(hourStart, files);
        }
        return files.get(bucket);
    }
}
