package io.sluice.ingest;

import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LandingScan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when a landing hour is complete and publishes its manifest. One runs per table, after the
 * file sink's committers (one per writer), so it only ever sees files that are committed, and acts
 * on a checkpoint only once every committer has reported its commits of it.
 *
 * <p>An hour is complete when the watermark passes {@code hour end + allowed lateness}. The
 * watermark that counts for a commit is the one this operator had at that checkpoint's barrier (the
 * smallest of the committers' at their barriers): every on-time row of the hour reached its writer
 * before that watermark, so before the barrier, so it is in a file that checkpoint committed. A
 * late row re-opens its hour: its commit marks the hour dirty again and the manifest is
 * re-published with the new file.
 *
 * <p>What is pending does not live in state alone: at every start the operator also reads the
 * landing zone ({@link LandingScan}), so an hour whose files were committed but whose manifest a
 * killed job never wrote gets it even when the job restarts without state. The same scan finds the
 * in-progress files that killed runs left behind; they are deleted once this run has committed its
 * first checkpoint, after which nothing can still refer to a file older than the run.
 */
final class HourCompletionOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<CommittableMessage<FileSinkCommittable>, Void> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(HourCompletionOperator.class);

    private final String basePath;
    private final String table;
    private final String schemaJson;
    private final long allowedLatenessMillis;

    private transient Schema schema;
    private transient long watermark;

    /** The newest barrier this operator has snapshotted. */
    private transient long lastBarrier;

    /** The newest barrier before end of input, or -1 while input goes on. */
    private transient long lastBarrierBeforeEnd;

    /** Hours with committed files not yet covered by a published manifest. */
    private transient TreeSet<String> dirtyHours;

    /** The watermark at each checkpoint barrier that has not been fully committed yet. */
    private transient NavigableMap<Long, Long> watermarkAtBarrier;

    /** What has arrived of each checkpoint's commits, from the committers' summaries. */
    private transient Map<Long, Arrivals> pending;

    /** Hidden files that runs before this one left unfinished, deleted after its first commit. */
    private transient List<FileStatus> leftovers;

    private transient long restoredCheckpoint;
    private transient ListState<String> dirtyState;
    private transient ListState<Tuple2<Long, Long>> watermarkState;
    private transient Counter published;

    HourCompletionOperator(
            String basePath, String table, String schemaJson, long allowedLatenessMillis) {
        this.basePath = basePath;
        this.table = table;
        this.schemaJson = schemaJson;
        this.allowedLatenessMillis = allowedLatenessMillis;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        dirtyState =
                context.getOperatorStateStore()
                        .getListState(new ListStateDescriptor<>("dirty-hours", Types.STRING));
        watermarkState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "barrier-watermarks", Types.TUPLE(Types.LONG, Types.LONG)));
        schema = new Schema.Parser().parse(schemaJson);
        watermark = Long.MIN_VALUE;
        restoredCheckpoint = context.getRestoredCheckpointId().orElse(0L);
        lastBarrier = restoredCheckpoint;
        lastBarrierBeforeEnd = -1;
        dirtyHours = new TreeSet<>();
        watermarkAtBarrier = new TreeMap<>();
        pending = new HashMap<>();
        dirtyState.get().forEach(dirtyHours::add);
        watermarkState.get().forEach(t -> watermarkAtBarrier.put(t.f0, t.f1));
        published = getMetricGroup().counter("manifestsPublished");
        leftovers = new ArrayList<>();
        long startedAt = System.currentTimeMillis();
        for (LandingScan.Hour hour : LandingScan.scan(new Path(basePath))) {
            if (hour.unpublished()) {
                dirtyHours.add(hour.partition());
            }
            for (FileStatus f : hour.leftovers()) {
                if (f.getModificationTime() < startedAt) {
                    leftovers.add(f);
                }
            }
        }
        if (!dirtyHours.isEmpty()) {
            LOG.info("{}: hours waiting for their manifest: {}", table, dirtyHours);
        }
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<FileSinkCommittable>> element)
            throws Exception {
        CommittableMessage<FileSinkCommittable> message = element.getValue();
        long checkpoint = message.getCheckpointId();
        Arrivals arrivals = pending.computeIfAbsent(checkpoint, id -> new Arrivals());
        if (message instanceof CommittableSummary<FileSinkCommittable> summary) {
            arrivals.summary(summary.getNumberOfSubtasks(), summary.getNumberOfCommittables());
        } else if (message instanceof CommittableWithLineage<FileSinkCommittable> lineage) {
            FileSinkCommittable committable = lineage.getCommittable();
            if (committable.hasPendingFile()) {
                dirtyHours.add(committable.getBucketId());
            }
            arrivals.committable();
        }
        if (arrivals.complete()) {
            pending.remove(checkpoint);
            publishCompleteHours(checkpoint);
        }
    }

    /**
     * One checkpoint's commits as they arrive from the committer subtasks. Each subtask sends its
     * summary (how many committables it committed) before those committables, so the checkpoint is
     * fully committed once every subtask's summary is in and no committable is outstanding.
     */
    private static final class Arrivals {
        private int subtasks = -1;
        private int summaries;
        private long outstanding;

        void summary(int numberOfSubtasks, int committables) {
            subtasks = numberOfSubtasks;
            summaries++;
            outstanding += committables;
        }

        void committable() {
            outstanding--;
        }

        boolean complete() {
            return summaries == subtasks && outstanding <= 0;
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() == Long.MAX_VALUE && lastBarrierBeforeEnd < 0) {
            lastBarrierBeforeEnd = lastBarrier;
        }
        watermark = Math.max(watermark, mark.getTimestamp());
        super.processWatermark(mark);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lastBarrier = context.getCheckpointId();
        watermarkAtBarrier.put(lastBarrier, watermark);
        dirtyState.update(new java.util.ArrayList<>(dirtyHours));
        java.util.List<Tuple2<Long, Long>> marks = new java.util.ArrayList<>();
        watermarkAtBarrier.forEach((id, wm) -> marks.add(Tuple2.of(id, wm)));
        watermarkState.update(marks);
    }

    private void publishCompleteHours(long checkpoint) throws Exception {
        if (checkpoint > restoredCheckpoint && !leftovers.isEmpty()) {
            removeLeftovers();
        }
        long completedBy = completedWatermark(checkpoint);
        for (var it = dirtyHours.iterator(); it.hasNext(); ) {
            String hour = it.next();
            long hourStart = HourPartitioner.parse(hour);
            long due = hourStart + HourPartitioner.hourMillis() + allowedLatenessMillis;
            if (completedBy >= due) {
                HourManifest.write(
                        new Path(new Path(basePath), hour),
                        table,
                        schema,
                        hourStart,
                        completedBy,
                        java.time.Duration.ofMillis(allowedLatenessMillis),
                        checkpoint);
                published.inc();
                it.remove();
            }
        }
        // Barriers older than this commit are no longer needed to judge later commits.
        watermarkAtBarrier.headMap(checkpoint, false).clear();
    }

    /**
     * Deletes what earlier runs left in progress. Called after this run's first own commit: the
     * committer commits what the restored checkpoint still owed before it, so every file of that
     * checkpoint has its final name by now, and files this run writes are newer than the list.
     */
    private void removeLeftovers() {
        for (FileStatus f : leftovers) {
            try {
                FileSystem fs = f.getPath().getFileSystem();
                if (fs.exists(f.getPath()) && fs.delete(f.getPath(), false)) {
                    LOG.info(
                            "{}: removed a file an earlier run left unfinished: {}",
                            table,
                            f.getPath());
                }
            } catch (IOException e) {
                LOG.warn("{}: could not remove {}: {}", table, f.getPath(), e.toString());
            }
        }
        leftovers.clear();
    }

    /**
     * The watermark that the rows committed by {@code checkpoint} are complete up to: the watermark
     * at the newest barrier not after the commit (an older one is only more conservative). A commit
     * after end of input holds everything the writer flushed at the end, so its watermark is the
     * final one, whether or not its barrier was seen here.
     */
    private long completedWatermark(long checkpoint) {
        if (lastBarrierBeforeEnd >= 0 && checkpoint > lastBarrierBeforeEnd) {
            return Long.MAX_VALUE;
        }
        Map.Entry<Long, Long> atBarrier = watermarkAtBarrier.floorEntry(checkpoint);
        return atBarrier == null ? Long.MIN_VALUE : atBarrier.getValue();
    }
}
