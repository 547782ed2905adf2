package io.sluice.lake;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * What a table's landing zone holds, read from the files themselves rather than from any job's
 * state: which hours have committed data that no {@code _SUCCESS} covers yet, and which hidden
 * files a killed writer left behind. A job that restarts without state, and {@code sluice compact},
 * learn from this what is still pending.
 */
public final class LandingScan {

    private LandingScan() {}

    /**
     * One landing hour.
     *
     * @param partition {@code dt=YYYY-MM-DD/hr=HH}
     * @param committed the committed data files' names
     * @param manifested the files the hour's {@code _SUCCESS} lists, or null without one
     * @param leftovers hidden files of unfinished writes: the file sink's in-progress parts and
     *     staged manifests
     */
    public record Hour(
            String partition,
            long hourStart,
            Set<String> committed,
            Set<String> manifested,
            List<FileStatus> leftovers) {

        /** Whether committed data is missing from the hour's manifest (or it has none). */
        public boolean unpublished() {
            return !committed.isEmpty()
                    && (manifested == null || !manifested.containsAll(committed));
        }
    }

    /** Every hour directory under {@code tableDir}, oldest first. */
    public static List<Hour> scan(Path tableDir) throws IOException {
        FileSystem fs = tableDir.getFileSystem();
        List<Hour> hours = new ArrayList<>();
        if (!fs.exists(tableDir)) {
            return hours;
        }
        TreeSet<String> partitions = new TreeSet<>();
        for (FileStatus day : list(fs, tableDir)) {
            if (day.isDir() && day.getPath().getName().startsWith("dt=")) {
                for (FileStatus hr : list(fs, day.getPath())) {
                    if (hr.isDir() && hr.getPath().getName().startsWith("hr=")) {
                        partitions.add(day.getPath().getName() + "/" + hr.getPath().getName());
                    }
                }
            }
        }
        for (String partition : partitions) {
            long start;
            try {
                start = HourPartitioner.parse(partition);
            } catch (IllegalArgumentException notAnHour) {
                continue; // nothing Sluice wrote
            }
            hours.add(hour(fs, new Path(tableDir, partition), partition, start));
        }
        return hours;
    }

    private static Hour hour(FileSystem fs, Path dir, String partition, long start)
            throws IOException {
        Set<String> committed = new TreeSet<>();
        List<FileStatus> leftovers = new ArrayList<>();
        boolean hasManifest = false;
        for (FileStatus f : list(fs, dir)) {
            String name = f.getPath().getName();
            if (f.isDir()) {
                continue;
            }
            if (name.equals(HourManifest.NAME)) {
                hasManifest = true;
            } else if (HourManifest.isCommittedDataFile(name)) {
                committed.add(name);
            } else if (isLeftover(name)) {
                leftovers.add(f);
            }
        }
        Set<String> manifested = null;
        if (hasManifest) {
            manifested = new HashSet<>();
            for (JsonNode file : HourManifest.read(dir).path("files")) {
                manifested.add(file.path("name").asText());
            }
        }
        return new Hour(partition, start, committed, manifested, leftovers);
    }

    /** The file sink's in-progress part files, and manifests staged but never renamed. */
    static boolean isLeftover(String name) {
        return name.startsWith(".")
                && (name.contains(".inprogress.")
                        || (name.startsWith("." + HourManifest.NAME + ".")
                                && name.endsWith(".tmp")));
    }

    private static FileStatus[] list(FileSystem fs, Path path) throws IOException {
        FileStatus[] statuses = LakeFiles.listStatus(fs, path);
        return statuses == null ? new FileStatus[0] : statuses;
    }
}
