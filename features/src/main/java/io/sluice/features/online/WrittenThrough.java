package io.sluice.features.online;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * How far the features job has written a view's tiles, as the stores keep it: one watermark per
 * sink subtask, named {@code <parallelism>/<subtask>}, each written after every tile of the events
 * that subtask received before that watermark. Every store keeps these marks beside the view's
 * tiles and reads them through {@link #of}, so Redis and SQLite answer alike.
 *
 * <p>The subtasks of one run (one parallelism) together cover every entity, so the least of their
 * marks bounds the whole view: every event with a time at or before it that the job will ever apply
 * on time has been written. Marks are only taken when every subtask of a parallelism has written
 * one. A restarted run overwrites its subtasks' marks as it goes (with lower ones while it replays:
 * the earlier ones would hold too); marks left by a run at another parallelism are kept, since a
 * tile's stored value does not move back, and the greatest bound is taken. ({@link
 * OnlineStore#clear} removes them with the tiles.)
 */
public final class WrittenThrough {

    private WrittenThrough() {}

    /**
     * The end (exclusive) of the times before {@code until} that a read of a view marked {@code
     * written} through finds whole: a time {@code t} needs the events before it, so up to one past
     * the mark. Without a mark, {@code until} itself: a caller that samples the store (the
     * consistency check, the demo's HTTP check) then assumes the job has caught up, as it did
     * before marks.
     */
    public static long before(OptionalLong written, long until) {
        return written.isPresent() && written.getAsLong() < until ? written.getAsLong() + 1 : until;
    }

    /** The name of subtask {@code subtask}'s mark among {@code parallelism}. */
    static String field(int parallelism, int subtask) {
        if (parallelism < 1 || subtask < 0 || subtask >= parallelism) {
            throw new IllegalArgumentException(
                    "subtask " + subtask + " of parallelism " + parallelism);
        }
        return parallelism + "/" + subtask;
    }

    /**
     * The watermark through which the view is written, from its stored marks (name → watermark);
     * empty when no parallelism has a mark from each of its subtasks. Names that are not marks are
     * ignored.
     */
    static OptionalLong of(Map<String, Long> marks) {
        Map<Integer, long[]> byParallelism = new HashMap<>(); // [subtasks seen, least mark]
        for (Map.Entry<String, Long> mark : marks.entrySet()) {
            String name = mark.getKey();
            int slash = name.indexOf('/');
            int parallelism;
            int subtask;
            try {
                parallelism = Integer.parseInt(name.substring(0, Math.max(0, slash)));
                subtask = Integer.parseInt(name.substring(slash + 1));
            } catch (NumberFormatException e) {
                continue;
            }
            if (parallelism < 1 || subtask < 0 || subtask >= parallelism) {
                continue;
            }
            long[] group =
                    byParallelism.computeIfAbsent(parallelism, p -> new long[] {0, Long.MAX_VALUE});
            group[0]++;
            group[1] = Math.min(group[1], mark.getValue());
        }
        OptionalLong through = OptionalLong.empty();
        for (Map.Entry<Integer, long[]> group : byParallelism.entrySet()) {
            long[] g = group.getValue();
            if (g[0] == group.getKey() && (through.isEmpty() || g[1] > through.getAsLong())) {
                through = OptionalLong.of(g[1]);
            }
        }
        return through;
    }
}
