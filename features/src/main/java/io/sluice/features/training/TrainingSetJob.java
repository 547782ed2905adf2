package io.sluice.features.training;

import io.sluice.features.agg.Status;
import io.sluice.features.job.JobProgress;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.LakeFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.api.common.operators.Order;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.formats.avro.typeutils.GenericRecordAvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * The training set as a Flink job in {@link RuntimeExecutionMode#BATCH}, on any cluster: the spine
 * is read as a stream ({@link SpineFormat}); for each entity of the request, it is partitioned by
 * the Hive bucket of that entity's key (the hash the warehouse is bucketed by), sorted within each
 * partition by (bucket, key, time) with Flink's external sort, and each subtask computes its rows'
 * features in chunks ({@link PointInTimeFunction}), reading only its buckets' files of the hours
 * those rows need. Finally the rows are range-partitioned by their position in the spine, sorted
 * back into spine order and written as one Parquet part file per range ({@link PartWriter}), which
 * concatenated in order are the spine's rows in its order.
 *
 * <p>No task holds more than a chunk of rows and their entities' tiles: a spine larger than any
 * task's memory spills in the sorts, as Flink's batch operators do.
 */
final class TrainingSetJob {

    /**
     * What the job did, from its accumulators.
     *
     * @param entities (view, entity) pairs whose tiles were built ({@link
     *     PointInTimeFunction#ENTITIES})
     */
    record Outcome(
            Map<String, Map<Status, Long>> statuses,
            List<String> partitions,
            List<URI> files,
            List<MissingRows> incomplete,
            long rows,
            long incompleteRows,
            long entities) {}

    private TrainingSetJob() {}

    /**
     * Runs the job of {@code plan} on {@code env}, writing its part files into {@code parts} (a
     * directory of the lake, on any of its file systems), and tells {@code progress} how many rows
     * its passes have computed, of the spine's rows times its passes, while it runs (from the job's
     * accumulators, as its tasks report them).
     *
     * @param chunkRows the most rows a subtask computes at once
     */
    static Outcome run(
            StreamExecutionEnvironment env,
            TrainingPlan plan,
            Path spine,
            boolean statusColumns,
            URI parts,
            int chunkRows,
            TrainingSetBuilder.Progress progress)
            throws Exception {
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        Schema internal = new Schema.Parser().parse(plan.internalSchema);
        GenericRecordAvroTypeInfo type = new GenericRecordAvroTypeInfo(internal);
        FileSource<GenericRecord> source =
                FileSource.forBulkFileFormat(
                                new SpineFormat(plan, spine.getFileName().toString()),
                                new org.apache.flink.core.fs.Path(spine.toUri()))
                        .build();
        DataStream<GenericRecord> rows =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "spine");
        if (plan.sample.isPresent()) {
            rows = rows.filter(new InSample(plan)).name("sample");
        }
        int row = internal.getField(TrainingPlan.ROW_COLUMN).pos();
        int[] entities = plan.entityColumns();
        for (int g = 0; g < plan.groups.size(); g++) {
            TrainingPlan.Group group = plan.groups.get(g);
            SpineKeys keys = new SpineKeys(plan, g, entities[g]);
            rows =
                    rows.partitionCustom(new SpineOrder.ByBucket(), new SpineOrder.BucketOf(keys))
                            .fullWindowPartition()
                            .sortPartition(new SpineOrder.EntityOrder(keys), Order.ASCENDING)
                            .name("sort by " + group.entity() + " bucket, key, time")
                            .fullWindowPartition()
                            .mapPartition(new PointInTimeFunction(plan, g, keys, chunkRows))
                            .returns(type)
                            .name("point in time: " + group.entity());
        }
        Schema output =
                TrainingSetWriter.schema(
                        new Schema.Parser().parse(plan.spineSchema), plan.features, statusColumns);
        rows.partitionCustom(new SpineOrder.ByRange(plan.rows), new SpineOrder.RowOf(row))
                .fullWindowPartition()
                .sortPartition(new SpineOrder.RowOf(row), Order.ASCENDING)
                .name("sort by spine row")
                .fullWindowPartition()
                .mapPartition(
                        new PartWriter(
                                parts.toString(),
                                output.toString(),
                                internal.getFields().size() - 1 - plan.featureCount,
                                plan.featureCount))
                .returns(Types.LONG)
                .name("write parts")
                .sinkTo(new DiscardingSink<>());
        org.apache.flink.core.execution.JobClient job = env.executeAsync("sluice-training-set");
        long total = plan.rows * plan.groups.size();
        progress.rows(0, total);
        JobExecutionResult result =
                JobProgress.await(
                        job, PointInTimeFunction.ROWS_COMPUTED, n -> progress.rows(n, total));
        progress.rows(total, total);
        return outcome(plan, result.getAllAccumulatorResults());
    }

    private static Outcome outcome(TrainingPlan plan, Map<String, Object> accumulators) {
        Map<String, Map<Status, Long>> statuses = new LinkedHashMap<>();
        for (int c = 0; c < plan.features.size(); c++) {
            Map<Status, Long> counts = new EnumMap<>(Status.class);
            for (Status s : Status.values()) {
                Object n = accumulators.get(PointInTimeFunction.statusCounter(c, s));
                if (n != null && (Long) n > 0) {
                    counts.put(s, (Long) n);
                }
            }
            FeatureRefs.Resolved r = plan.features.get(c);
            statuses.put(r.ref().toString(), counts);
        }
        List<String> partitions = new ArrayList<>(new TreeSet<>(list(accumulators, "partitions")));
        List<URI> files =
                new TreeSet<>(list(accumulators, "files")).stream().map(URI::create).toList();
        List<MissingRows> incomplete = MissingRows.merge(list(accumulators, "incomplete"));
        return new Outcome(
                statuses,
                partitions,
                files,
                incomplete,
                count(accumulators, PartWriter.ROWS),
                count(accumulators, PartWriter.INCOMPLETE_ROWS),
                count(accumulators, PointInTimeFunction.ENTITIES));
    }

    private static long count(Map<String, Object> accumulators, String name) {
        Object n = accumulators.get(name);
        return n == null ? 0 : (Long) n;
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Map<String, Object> accumulators, String name) {
        Object v = accumulators.get(name);
        return v == null ? List.of() : (List<String>) v;
    }

    /** The part files a run wrote into {@code dir} (its own), in spine order. */
    static List<URI> parts(URI dir) throws IOException {
        return LakeFiles.list(dir).stream()
                .filter(e -> !e.directory() && e.name().startsWith("part-"))
                .map(LakeFiles.Entry::uri)
                .toList();
    }

    /**
     * Writes a subtask's rows, a range of the spine in its order, as {@code part-<subtask>.parquet}
     * (nothing when it has none). Written by hand rather than with Flink's file sink: the parts are
     * published by the builder ({@link ArtifactStore}: an atomic rename of their directory, or on
     * an object store a manifest written after them), and a re-run of a failed task overwrites its
     * part, so the sink's two-phase commit would add nothing; and the part's name must give its
     * range's place in the spine.
     */
    static final class PartWriter extends RichMapPartitionFunction<GenericRecord, Long> {
        private static final long serialVersionUID = 1L;
        static final String ROWS = "rows written";
        static final String INCOMPLETE_ROWS = "rows incomplete";
        private final String dir;
        private final String schema;
        private final int statuses; // the first status column
        private final int features;

        PartWriter(String dir, String schema, int statuses, int features) {
            this.dir = dir;
            this.schema = schema;
            this.statuses = statuses;
            this.features = features;
        }

        /** Whether a view of the request cannot answer {@code r} whole. */
        private boolean incomplete(GenericRecord r) {
            for (int c = statuses; c < statuses + features; c++) {
                if (Status.INCOMPLETE.name().equals(r.get(c).toString())) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void mapPartition(Iterable<GenericRecord> rows, Collector<Long> out)
                throws IOException {
            var it = rows.iterator();
            if (!it.hasNext()) {
                return;
            }
            int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            URI file =
                    LakeFiles.resolve(URI.create(dir), String.format("part-%05d.parquet", subtask));
            long[] counts = new long[2]; // rows, incomplete rows
            TrainingSetWriter.write(
                    file,
                    new Schema.Parser().parse(schema),
                    writer -> {
                        while (it.hasNext()) {
                            GenericRecord r = it.next();
                            writer.write(r);
                            counts[0]++;
                            if (incomplete(r)) {
                                counts[1]++;
                            }
                        }
                    });
            getRuntimeContext().getLongCounter(ROWS).add(counts[0]);
            getRuntimeContext().getLongCounter(INCOMPLETE_ROWS).add(counts[1]);
            out.collect(counts[0]);
        }
    }
}
