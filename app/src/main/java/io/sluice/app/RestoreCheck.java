package io.sluice.app;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;

/**
 * Checks, before a job restores a savepoint or checkpoint, that every operator state in it has an
 * operator of the same uid in the job about to run. Flink would fail the restore too, but only once
 * the job is scheduled, and naming the operator by its hash ("Cannot map checkpoint/savepoint state
 * for operator 3f2a…"); this names it by its uid and operator name, says what each kind of Sluice
 * operator's uid stands for, and fails before anything is submitted.
 */
final class RestoreCheck {

    /**
     * {@code features-<view>-tiles-<layout>}: a view's tiles, whose state layout (tile size and
     * source fields) is part of the uid, see {@link io.sluice.features.job.FeaturesJob}.
     */
    private static final Pattern TILES = Pattern.compile("features-(.+)-tiles-([0-9a-f]+)");

    private RestoreCheck() {}

    /** The uid and name of an operator state in a savepoint that the new job cannot take. */
    record Unclaimed(String uid, String name) {
        @Override
        public String toString() {
            return "'" + uid + "'" + (name.isEmpty() || name.equals(uid) ? "" : " (" + name + ")");
        }
    }

    /**
     * The operator states of the savepoint or checkpoint at {@code path} that no operator of {@code
     * uids} claims. States without a uid (written by an older Flink) are left to Flink's own check.
     */
    static List<Unclaimed> unclaimed(Set<String> uids, String path) throws IOException {
        List<Unclaimed> unclaimed = new ArrayList<>();
        for (OperatorState state : load(path).getOperatorStates()) {
            String uid = state.getOperatorUid().orElse(null);
            if (uid != null && !uids.contains(uid) && holdsState(state)) {
                unclaimed.add(new Unclaimed(uid, state.getOperatorName().orElse("")));
            }
        }
        return unclaimed;
    }

    /**
     * Fails if the job in {@code env} would drop state of the savepoint at {@code path}; with
     * {@code allowDropping}, only reports it.
     */
    static void check(
            StreamExecutionEnvironment env,
            String path,
            boolean allowDropping,
            java.util.function.Consumer<String> warn)
            throws IOException {
        Set<String> uids = uids(env);
        List<Unclaimed> unclaimed = unclaimed(uids, path);
        if (unclaimed.isEmpty()) {
            return;
        }
        StringBuilder m = new StringBuilder();
        m.append(path)
                .append(" holds the state of ")
                .append(unclaimed.size() == 1 ? "an operator" : unclaimed.size() + " operators")
                .append(" that this job does not have: ");
        for (int i = 0; i < unclaimed.size(); i++) {
            m.append(i == 0 ? "" : ", ").append(unclaimed.get(i));
        }
        m.append(". ").append(explain(unclaimed, uids));
        if (allowDropping) {
            warn.accept("--allow-non-restored-state: dropping it. " + m);
            return;
        }
        throw new IllegalArgumentException(
                m + " To start anyway and drop that state, add --allow-non-restored-state.");
    }

    /** What a missing uid most likely means, by the kind of operator it names. */
    private static String explain(List<Unclaimed> unclaimed, Set<String> uids) {
        List<String> why = new ArrayList<>();
        for (Unclaimed u : unclaimed) {
            Matcher tiles = TILES.matcher(u.uid());
            if (tiles.matches()) {
                String view = tiles.group(1);
                boolean viewStays =
                        uids.stream().anyMatch(x -> x.startsWith("features-" + view + "-tiles-"));
                why.add(
                        viewStays
                                ? "View "
                                        + view
                                        + "'s tile layout changed (its tile size, or the source"
                                        + " fields its features read): the saved tiles hold other"
                                        + " values than the new features need. Start the features"
                                        + " job with --rebuild, then run features --backfill over"
                                        + " the feature log's hours."
                                : "View " + view + " is no longer defined (renamed or removed).");
            } else if (u.uid().startsWith("ingest-")) {
                why.add(
                        "The ingest job's operators are named by table: was table "
                                + u.uid().replaceFirst("^ingest-", "").replaceFirst("-.*", "")
                                + " renamed or removed?");
            }
        }
        return String.join(" ", why);
    }

    /** The uids of the operators of the job defined in {@code env}. */
    static Set<String> uids(StreamExecutionEnvironment env) {
        Set<String> uids = new TreeSet<>();
        for (StreamNode node : env.getStreamGraph(false).getStreamNodes()) {
            if (node.getTransformationUID() != null) {
                uids.add(node.getTransformationUID());
            }
        }
        return uids;
    }

    private static boolean holdsState(OperatorState state) {
        if (state.getCoordinatorState() != null) {
            return true;
        }
        for (OperatorSubtaskState s : state.getStates()) {
            if (s.hasState()) {
                return true;
            }
        }
        return false;
    }

    private static CheckpointMetadata load(String path) throws IOException {
        CompletedCheckpointStorageLocation location;
        try {
            location = AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(path);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "no savepoint or checkpoint at " + path + ": " + e.getMessage(), e);
        }
        try (DataInputStream in =
                new DataInputStream(location.getMetadataHandle().openInputStream())) {
            return Checkpoints.loadCheckpointMetadata(
                    in, RestoreCheck.class.getClassLoader(), path);
        }
    }
}
