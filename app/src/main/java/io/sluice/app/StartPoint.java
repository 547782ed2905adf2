package io.sluice.app;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;

/**
 * Where a job's state comes from when it starts.
 *
 * @param path a checkpoint or savepoint to restore, or null to start without state
 * @param claim whether the job takes the checkpoint over (and deletes it once subsumed): yes for
 *     the job's own retained checkpoints, no for a savepoint a user keeps
 * @param dropUnclaimed whether state of operators the job no longer has is dropped instead of
 *     failing the restore ({@code --allow-non-restored-state})
 * @param description how the start is reported, e.g. "from the retained checkpoint …"
 */
record StartPoint(String path, boolean claim, boolean dropUnclaimed, String description) {

    static final StartPoint FRESH = new StartPoint(null, false, false, "without state");

    static StartPoint checkpoint(String path) {
        return new StartPoint(path, true, false, "from the retained checkpoint " + path);
    }

    static StartPoint savepoint(String path) {
        return new StartPoint(path, false, false, "from the savepoint or checkpoint " + path);
    }

    StartPoint droppingUnclaimedState() {
        return new StartPoint(path, claim, true, description);
    }

    boolean restores() {
        return path != null;
    }

    void applyTo(Configuration conf) {
        if (path != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
            conf.set(
                    StateRecoveryOptions.RESTORE_MODE,
                    claim ? RecoveryClaimMode.CLAIM : RecoveryClaimMode.NO_CLAIM);
        }
        if (dropUnclaimed) {
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
    }
}
