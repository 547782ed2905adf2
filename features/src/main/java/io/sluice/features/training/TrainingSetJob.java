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
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.api.common.operators.Order;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
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
                    rows.partitionCustom(new ByBucket(), new BucketOf(keys))
                            .fullWindowPartition()
                            .sortPartition(new EntityOrder(keys), Order.ASCENDING)
                            .name("sort by " + group.entity() + " bucket, key, time")
                            .fullWindowPartition()
                            .mapPartition(new PointInTimeFunction(plan, g, keys, chunkRows))
                            .returns(type)
                            .name("point in time: " + group.entity());
        }
        Schema output =
                TrainingSetWriter.schema(
                        new Schema.Parser().parse(plan.spineSchema), plan.features, statusColumns);
        rows.partitionCustom(new ByRange(plan.rows), new RowOf(row))
                .fullWindowPartition()
                .sortPartition(new RowOf(row), Order.ASCENDING)
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

    /** A bucket's rows all go to one subtask; rows without a key spread by row. */
    static final class ByBucket implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer bucket, int partitions) {
            return Math.floorMod(bucket, partitions);
        }
    }

    /** A row's bucket in the pass's table, or a negative number when it has no key. */
    static final class BucketOf implements KeySelector<GenericRecord, Integer> {
        private static final long serialVersionUID = 1L;
        private final SpineKeys keys;

        BucketOf(SpineKeys keys) {
            this.keys = keys;
        }

        @Override
        public Integer getKey(GenericRecord r) {
            String key = keys.key(r);
            return key == null ? -1 - (int) (keys.row(r) & 0xffff) : keys.bucket(key);
        }
    }

    /**
     * The order a pass computes rows in: by bucket, then key (so an entity's rows come together and
     * its tiles are built once per chunk), then time, as one string whose natural order is that of
     * (bucket, key, time). One atomic key and not a tuple because Flink 2.2's {@code sortPartition}
     * with a key selector compares only the first flat field of a composite key: a {@code Tuple3}
     * sorted by bucket alone, and each row then built its entity's tiles again.
     *
     * <p>The string is the bucket as two chars, the key, a NUL, and the time as four 16-bit chars,
     * big-endian with the sign bit flipped. A key holding NUL could interleave with another key of
     * the same prefix, which costs a tile rebuild, never a wrong value: the point-in-time step
     * computes each row from its own entity's events whatever order rows come in. Rows without a
     * key sort first, by position.
     */
    static final class EntityOrder implements KeySelector<GenericRecord, String> {
        private static final long serialVersionUID = 1L;
        private final SpineKeys keys;

        EntityOrder(SpineKeys keys) {
            this.keys = keys;
        }

        @Override
        public String getKey(GenericRecord r) {
            String key = keys.key(r);
            return key == null
                    ? of(0, "", keys.row(r))
                    : of(keys.bucket(key) + 1, key, keys.tail(r));
        }

        /** The order key of (bucket, key, time), {@code bucket} not negative. */
        static String of(int bucket, String key, long time) {
            StringBuilder s = new StringBuilder(key.length() + 7);
            s.append((char) (bucket >>> 16)).append((char) bucket).append(key).append('\0');
            long bits = time ^ Long.MIN_VALUE;
            for (int shift = 48; shift >= 0; shift -= 16) {
                s.append((char) (bits >>> shift));
            }
            return s.toString();
        }
    }

    /** Contiguous ranges of the spine's rows, one per subtask, in order. */
    static final class ByRange implements Partitioner<Long> {
        private static final long serialVersionUID = 1L;
        private final long rows;

        ByRange(long rows) {
            this.rows = Math.max(1, rows);
        }

        @Override
        public int partition(Long row, int partitions) {
            return (int) Math.min(partitions - 1, row * partitions / rows);
        }
    }

    /** A row's position in the spine. */
    static final class RowOf implements KeySelector<GenericRecord, Long> {
        private static final long serialVersionUID = 1L;
        private final int column;

        RowOf(int column) {
            this.column = column;
        }

        @Override
        public Long getKey(GenericRecord r) {
            return (Long) r.get(column);
        }
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
