package io.sluice.app;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoints a job left in its checkpoint directory, as Flink lays them out: {@code <dir>/<job
 * id>/chk-<n>/_metadata}. A checkpoint counts only once its {@code _metadata} exists, which Flink
 * writes last; a process killed in the middle of a checkpoint leaves a {@code chk-<n>} without it,
 * and the one before stays retained.
 *
 * <p>This is what the Kubernetes operator's {@code last-state} upgrade does with its HA metadata,
 * for a job started by hand: find the newest complete checkpoint of the same job and resume from
 * it.
 */
final class RetainedCheckpoints {

    private static final Logger LOG = LoggerFactory.getLogger(RetainedCheckpoints.class);
    static final String METADATA = "_metadata";

    private final Path dir;

    RetainedCheckpoints(URI dir) {
        this.dir = new Path(dir);
    }

    /** One complete checkpoint: its directory, the job directory holding it, and when it ended. */
    record Checkpoint(Path path, Path jobDir, long id, long completedAt) {}

    /** The newest complete checkpoint of any run of the job, if one is retained. */
    Optional<Checkpoint> latest() throws IOException {
        Checkpoint newest = null;
        for (Checkpoint c : all()) {
            if (newest == null
                    || c.completedAt() > newest.completedAt()
                    || (c.completedAt() == newest.completedAt() && c.id() > newest.id())) {
                newest = c;
            }
        }
        return Optional.ofNullable(newest);
    }

    private List<Checkpoint> all() throws IOException {
        List<Checkpoint> found = new ArrayList<>();
        FileSystem fs = dir.getFileSystem();
        if (!fs.exists(dir)) {
            return found;
        }
        for (FileStatus job : list(fs, dir)) {
            if (!job.isDir()) {
                continue;
            }
            for (FileStatus chk : list(fs, job.getPath())) {
                String name = chk.getPath().getName();
                if (!chk.isDir() || !name.startsWith("chk-")) {
                    continue;
                }
                Path metadata = new Path(chk.getPath(), METADATA);
                FileStatus meta;
                try {
                    meta = fs.getFileStatus(metadata);
                } catch (java.io.FileNotFoundException incomplete) {
                    continue;
                }
                found.add(
                        new Checkpoint(
                                chk.getPath(),
                                job.getPath(),
                                Long.parseLong(name.substring(4)),
                                meta.getModificationTime()));
            }
        }
        return found;
    }

    /**
     * Deletes every run's directory except {@code keep}'s: older runs whose checkpoints nothing
     * will restore any more, and runs killed before their first checkpoint. Without this, every
     * restart leaves a directory behind.
     */
    int removeAllBut(Optional<Path> keep) throws IOException {
        FileSystem fs = dir.getFileSystem();
        if (!fs.exists(dir)) {
            return 0;
        }
        int removed = 0;
        for (FileStatus job : list(fs, dir)) {
            if (job.isDir() && !(keep.isPresent() && keep.get().equals(job.getPath()))) {
                LOG.info("Removing the checkpoints of an earlier run: {}", job.getPath());
                fs.delete(job.getPath(), true);
                removed++;
            }
        }
        return removed;
    }

    private static FileStatus[] list(FileSystem fs, Path path) throws IOException {
        FileStatus[] statuses = fs.listStatus(path);
        return statuses == null ? new FileStatus[0] : statuses;
    }
}
