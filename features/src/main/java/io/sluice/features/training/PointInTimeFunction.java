package io.sluice.features.training;

import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.OrderedTiles;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import io.sluice.features.offline.WarehouseEvents;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * One pass of the training-set job: the features of the views of one entity for a subtask's rows,
 * which arrive sorted by (bucket, key, time). Rows are taken in chunks of at most {@code chunkRows}
 * (whole entities, one bucket): for each view of the pass, a row whose window the warehouse does
 * not hold whole is {@link Status#INCOMPLETE}; for the others the chunk reads its bucket's files of
 * the hours their windows touch, only its entities' events, into each entity's tiles ({@link
 * OrderedTiles}), and computes every value with the shared window library ({@link Windows}), as the
 * online read does. A row with no key is {@link Status#NOT_FOUND} in every view of the pass.
 */
final class PointInTimeFunction extends RichMapPartitionFunction<GenericRecord, GenericRecord> {

    private static final long serialVersionUID = 1L;
    private static final long HOUR = HourPartitioner.hourMillis();

    /** The first few rows, in spine order, of each (view, hour) kept for a refusal's message. */
    static final int EXAMPLES = 3;

    /**
     * The job's counter of (view, entity) pairs whose tiles a subtask built: one per entity of a
     * chunk, so a spine sorted as the pass needs builds each entity's tiles once per view.
     */
    static final String ENTITIES = "entities computed";

    /**
     * The job's counter of rows a pass has computed, added chunk by chunk while the job runs, so a
     * client polling the job's accumulators sees how far it is.
     */
    static final String ROWS_COMPUTED = "rows computed";

    static String statusCounter(int column, Status status) {
        return "status " + column + " " + status.name();
    }

    private final TrainingPlan.Group group;
    private final SpineKeys keys;
    private final int chunkRows;
    private final int spineColumns;
    private final int features;

    private transient Map<String, HourFiles> warehouses;
    private transient Set<String> files;
    private transient Set<String> partitions;
    private transient Map<String, long[]> missingCounts; // view \t hour -> rows
    private transient Map<String, TreeMap<Long, String>> examples; // view \t hour -> row -> text
    private transient long[][] statusCounts; // [column][status]
    private transient long entities;
    private transient Partial[] merged; // the current row's partials, by group
    private transient org.apache.flink.api.common.accumulators.LongCounter computed;

    PointInTimeFunction(TrainingPlan plan, int group, SpineKeys keys, int chunkRows) {
        this.group = plan.groups.get(group);
        this.keys = keys;
        this.chunkRows = chunkRows;
        this.spineColumns = new Schema.Parser().parse(plan.spineSchema).getFields().size();
        this.features = plan.featureCount;
    }

    @Override
    public void open(OpenContext context) {
        warehouses = new HashMap<>();
        for (PlannedView vp : group.views()) {
            warehouses.put(vp.view.name(), new HourFiles(vp));
        }
        files = new HashSet<>();
        partitions = new HashSet<>();
        missingCounts = new LinkedHashMap<>();
        examples = new HashMap<>();
        statusCounts = new long[features][Status.values().length];
        computed = getRuntimeContext().getLongCounter(ROWS_COMPUTED);
    }

    /** A chunk of rows of one bucket, whole entities, sorted by key and time. */
    private static final class Chunk {
        final List<GenericRecord> rows = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        long[] tails = new long[16];
        long[] ends = new long[16];
        int bucket;

        void add(GenericRecord r, String key, int bucket, Instant t) {
            if (rows.size() == tails.length) {
                tails = Arrays.copyOf(tails, tails.length * 2);
                ends = Arrays.copyOf(ends, ends.length * 2);
            }
            tails[rows.size()] = TrainingPlan.tail(t);
            ends[rows.size()] = TrainingPlan.end(t);
            rows.add(r);
            keys.add(key);
            this.bucket = bucket;
        }

        String lastKey() {
            return keys.get(keys.size() - 1);
        }

        void clear() {
            rows.clear();
            keys.clear();
        }
    }

    @Override
    public void mapPartition(Iterable<GenericRecord> rows, Collector<GenericRecord> out)
            throws IOException {
        Chunk chunk = new Chunk();
        for (GenericRecord r : rows) {
            String key = keys.key(r);
            if (key == null) {
                // No key: no event is its entity's.
                for (PlannedView vp : group.views()) {
                    for (int column : vp.columns) {
                        set(r, column, WindowReads.notFound());
                    }
                }
                out.collect(r);
                computed.add(1);
                continue;
            }
            int bucket = keys.bucket(key);
            if (!chunk.rows.isEmpty()
                    && (bucket != chunk.bucket
                            || chunk.rows.size() >= chunkRows && !key.equals(chunk.lastKey()))) {
                compute(chunk, out);
                chunk.clear();
            }
            chunk.add(r, key, bucket, keys.time(r));
        }
        if (!chunk.rows.isEmpty()) {
            compute(chunk, out);
        }
        report();
    }

    private void compute(Chunk chunk, Collector<GenericRecord> out) throws IOException {
        for (PlannedView vp : group.views()) {
            compute(vp, chunk);
        }
        for (GenericRecord r : chunk.rows) {
            out.collect(r);
        }
        computed.add(chunk.rows.size());
    }

    /** The values of one view for a chunk's rows. */
    private void compute(PlannedView vp, Chunk chunk) throws IOException {
        int n = chunk.rows.size();
        boolean[] answered = new boolean[n];
        List<long[]> spans = new ArrayList<>(n);
        Map<String, List<EventEntry>> events = new HashMap<>();
        for (int i = 0; i < n; i++) {
            long from = Windows.floor(vp.from(chunk.tails[i]), HOUR);
            long missing = vp.coverage.missing(from, chunk.ends[i]);
            if (missing != CompleteHours.NONE) {
                // Not answered from part of the data.
                incomplete(vp, missing, chunk, i);
                for (int column : vp.columns) {
                    set(chunk.rows.get(i), column, null, Status.INCOMPLETE);
                }
                continue;
            }
            answered[i] = true;
            spans.add(new long[] {from, chunk.ends[i]});
            events.computeIfAbsent(chunk.keys.get(i), k -> new ArrayList<>());
        }
        if (events.isEmpty()) {
            return;
        }
        // The union of the answered rows' spans, as whole hours, in order: each file is sorted by
        // (key, time, id), so each entity's events come in order.
        spans.sort((a, b) -> Long.compare(a[0], b[0]));
        HourFiles warehouse = warehouses.get(vp.view.name());
        long next = Long.MIN_VALUE;
        for (long[] s : spans) {
            for (long h = Math.max(s[0], next); h < s[1]; h += HOUR) {
                WarehouseSnapshot.File file = warehouse.bucketFile(h, chunk.bucket);
                if (file != null) {
                    files.add(file.location());
                    partitions.add(vp.table.name() + "/" + HourPartitioner.partition(h));
                    WarehouseEvents.scan(
                            vp.table,
                            warehouse.open(file, h),
                            vp.view,
                            events.keySet(),
                            (k, e) -> events.get(k).add(e));
                }
            }
            next = Math.max(next, Windows.floor(s[1] - 1, HOUR) + HOUR);
        }
        PlannedView.Merges merges = vp.merges();
        merged = new Partial[merges.merged.size()];
        String current = null;
        OrderedTiles reader = null;
        for (int i = 0; i < n; i++) {
            if (!answered[i]) {
                continue;
            }
            String key = chunk.keys.get(i);
            if (!key.equals(current)) {
                current = key;
                reader =
                        OrderedTiles.of(
                                vp.view.tileMillis(), vp.view.coarseMillis(), events.get(key));
                entities++;
            }
            long tail = chunk.tails[i];
            long end = chunk.ends[i];
            // Each group's partial once; the presence count's says whether the entity is known.
            Arrays.fill(merged, null);
            boolean known =
                    WindowReads.present(vp.view, partial(vp, merges.presence, tail, end, reader));
            GenericRecord r = chunk.rows.get(i);
            for (int f = 0; f < vp.features.size(); f++) {
                FeatureValue value =
                        known
                                ? partial(vp, merges.group[f], tail, end, reader)
                                        .value(vp.features.get(f))
                                : WindowReads.notFound();
                set(r, vp.columns.get(f), value);
            }
        }
    }

    /** Group {@code g}'s partial at the row with ends {@code tail} and {@code end}, merged once. */
    private Partial partial(PlannedView vp, int g, long tail, long end, Windows.TileReader reader) {
        if (merged[g] == null) {
            FeatureDef f = vp.merges().merged.get(g);
            merged[g] =
                    WindowReads.partial(
                            f,
                            Windows.cover(
                                    f, tail, end, vp.view.tileMillis(), vp.view.coarseMillis()),
                            reader);
        }
        return merged[g];
    }

    private void set(GenericRecord r, int column, FeatureValue value) {
        set(r, column, value.value(), value.status());
    }

    private void set(GenericRecord r, int column, Object value, Status status) {
        r.put(spineColumns + column, value);
        r.put(spineColumns + features + column, status.name());
        statusCounts[column][status.ordinal()]++;
    }

    private void incomplete(PlannedView vp, long hour, Chunk chunk, int i) {
        String group = vp.view.name() + "\t" + hour;
        missingCounts.computeIfAbsent(group, g -> new long[1])[0]++;
        TreeMap<Long, String> first = examples.computeIfAbsent(group, g -> new TreeMap<>());
        long row = keys.row(chunk.rows.get(i));
        if (first.size() < EXAMPLES || row < first.lastKey()) {
            first.put(
                    row,
                    MissingRows.text(
                            vp.view.name(),
                            hour,
                            row,
                            chunk.keys.get(i),
                            keys.time(chunk.rows.get(i))));
            if (first.size() > EXAMPLES) {
                first.pollLastEntry();
            }
        }
    }

    /** Adds what this subtask did to the job's accumulators. */
    private void report() {
        var context = getRuntimeContext();
        for (int c = 0; c < features; c++) {
            for (Status s : Status.values()) {
                long n = statusCounts[c][s.ordinal()];
                if (n > 0) {
                    context.getLongCounter(statusCounter(c, s)).add(n);
                }
            }
        }
        context.getLongCounter(ENTITIES).add(entities);
        add("files", files);
        add("partitions", partitions);
        List<String> incomplete = new ArrayList<>();
        missingCounts.forEach((g, n) -> incomplete.add(g + "\t\t" + n[0]));
        examples.values().forEach(e -> incomplete.addAll(e.values()));
        add("incomplete", incomplete);
    }

    private void add(String name, Collection<String> values) {
        var context = getRuntimeContext();
        if (context.getAccumulator(name) == null) {
            context.addAccumulator(name, new ListAccumulator<String>());
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        ListAccumulator<String> list = (ListAccumulator) context.getAccumulator(name);
        values.forEach(list::add);
    }
}
