package io.sluice.features.training;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.HiveBucketing;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.avro.Schema;

/**
 * What a training set reads, decided before anything is read: the spine rows kept (after the
 * sample), per requested view its features, its entity column, the warehouse hours the rows'
 * windows touch, and per row the key and bucket of its entity in that view's table and whether the
 * warehouse holds the row's window whole ({@link CompleteHours}). Refuses a request it cannot
 * answer (unknown or repeated features, missing columns) and, unless asked to mark them, rows whose
 * data is not all there.
 */
final class TrainingPlan {

    /**
     * One requested view: its features, their output columns, its entity column, and per output row
     * its key, its bucket and whether it can be answered; and the hours its rows read.
     */
    static final class View {
        final ViewDef view;
        final TableConfig table;
        final String entity; // the spine column of its key: the view's entity
        final List<Integer> columns = new ArrayList<>(); // output feature positions
        final List<FeatureDef> features = new ArrayList<>();

        /** The hours the rows it answers read (not those of incomplete rows). */
        final TreeSet<Long> hours = new TreeSet<>();

        /** Per output row, its entity key, or null when the spine's is null or empty. */
        String[] keys;

        /** Per output row, the bucket of its key in the view's table (-1 without a key). */
        int[] buckets;

        /**
         * Per output row, the first hour its window needs that the warehouse does not hold whole,
         * or {@link CompleteHours#NONE}: the row is answered from the warehouse.
         */
        long[] missing;

        CompleteHours.Coverage coverage;

        View(ViewDef view, TableConfig table, String entity) {
            this.view = view;
            this.table = table;
            this.entity = entity;
        }

        /** Whether output row {@code i} is answered from the warehouse (it has a key and data). */
        boolean answered(int i) {
            return keys[i] != null && missing[i] == CompleteHours.NONE;
        }

        /**
         * The first millisecond a row whose time's tail is {@code tail} ({@link
         * TrainingPlan#tails}) reads: the start of its longest window, or of its view's retention,
         * which says whether the entity is known ({@link Windows#present}).
         */
        long from(long tail) {
            List<FeatureDef> read = new ArrayList<>(features);
            read.add(view.presence());
            return Windows.start(read, tail, view.tileMillis());
        }
    }

    /** The requested features, resolved, in output order. */
    final List<FeatureRefs.Resolved> features;

    int[] rows; // spine row of each output row

    /**
     * Each row's time t, kept at the spine's precision as the two whole milliseconds around it:
     * {@code tails[i] = floor_ms(t)}, where its windows' tails are cut ({@code floor_s(t) =
     * floor_s(tails[i])}), and {@code ends[i] = ceil_ms(t)}, where their heads end ({@code x.ts <
     * t} exactly when {@code x.ts < ends[i]}). Equal when t is a whole millisecond.
     */
    long[] tails;

    long[] ends;
    final List<View> views = new ArrayList<>();
    final List<String> partitions = new ArrayList<>();

    /** Per warehouse hour read, {@code table/partition sha256(_SUCCESS)}: part of the digest. */
    final List<String> manifests = new ArrayList<>();

    private TrainingPlan(List<FeatureRefs.Resolved> features) {
        this.features = features;
    }

    /** The view plan of view {@code name}. */
    View view(String name) {
        return views.stream().filter(v -> v.view.name().equals(name)).findFirst().orElseThrow();
    }

    static TrainingPlan of(SluiceConfig config, Spine spine, TrainingSetBuilder.Request request)
            throws IOException {
        List<FeatureRefs.Resolved> resolved;
        try {
            resolved = FeatureRefs.resolve(FeatureRefs.views(config), request.features());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--features: " + e.getMessage());
        }
        TrainingPlan plan = new TrainingPlan(resolved);
        plan.planViews(config);
        Schema.Field time =
                spine.column(request.timestampColumn(), "the time column; see --timestamp-column");
        Map<String, Schema.Field> entities = plan.entityColumns(spine);
        plan.selectRows(spine, request, time, entities);
        for (View vp : plan.views) {
            plan.planHours(config, vp);
        }
        if (request.incomplete() == TrainingSetBuilder.Incomplete.REFUSE) {
            plan.refuseIncomplete(spine, time);
        }
        return plan;
    }

    private void planViews(SluiceConfig config) {
        Map<String, View> byName = new LinkedHashMap<>();
        for (int i = 0; i < features.size(); i++) {
            FeatureRefs.Resolved r = features.get(i);
            FeatureRef ref = r.ref();
            View vp =
                    byName.computeIfAbsent(
                            r.view().name(),
                            n -> {
                                var view = config.featureView(n).orElseThrow();
                                return new View(
                                        r.view(),
                                        config.table(view.source()).orElseThrow(),
                                        view.entity());
                            });
            if (vp.features.contains(r.feature())) {
                throw new IllegalArgumentException("--features: " + ref + " is named twice");
            }
            vp.features.add(r.feature());
            vp.columns.add(i);
        }
        views.addAll(byName.values());
    }

    /**
     * The spine's column of each requested view's entity (views of several entities each read their
     * own), by entity; an error names a missing column and the views that need it.
     */
    private Map<String, Schema.Field> entityColumns(Spine spine) {
        Map<String, List<String>> viewsOf = new LinkedHashMap<>();
        for (View vp : views) {
            viewsOf.computeIfAbsent(vp.entity, e -> new ArrayList<>()).add(vp.view.name());
        }
        Map<String, Schema.Field> columns = new LinkedHashMap<>();
        viewsOf.forEach(
                (entity, names) ->
                        columns.put(
                                entity,
                                spine.column(
                                        entity,
                                        (names.size() == 1
                                                        ? "the entity of view "
                                                        : "the entity of views ")
                                                + String.join(", ", names))));
        return columns;
    }

    private void selectRows(
            Spine spine,
            TrainingSetBuilder.Request request,
            Schema.Field time,
            Map<String, Schema.Field> entities) {
        // Sampling selects the first view's entities, by its table's buckets: what a sample aligns
        // to. A row without such an entity is in no sample.
        View first = views.get(0);
        Schema.Field sampled = entities.get(first.entity);
        Sample.Selector selector =
                request.sample().map(s -> s.selector(first.table.buckets())).orElse(null);
        int n = spine.rows().size();
        int[] kept = new int[n];
        Map<String, String[]> keptKeys = new LinkedHashMap<>();
        entities.keySet().forEach(e -> keptKeys.put(e, new String[n]));
        long[] keptTails = new long[n];
        long[] keptEnds = new long[n];
        int count = 0;
        for (int r = 0; r < n; r++) {
            if (selector != null) {
                String k = spine.keyOrNull(r, sampled);
                if (k == null || !selector.selects(k, bucket(first.table, k))) {
                    continue;
                }
            }
            Instant t = spine.time(r, time);
            kept[count] = r;
            for (var e : entities.entrySet()) {
                keptKeys.get(e.getKey())[count] = spine.keyOrNull(r, e.getValue());
            }
            keptTails[count] = Windows.floorMillis(t);
            keptEnds[count] = Windows.ceilMillis(t);
            count++;
        }
        rows = Arrays.copyOf(kept, count);
        tails = Arrays.copyOf(keptTails, count);
        ends = Arrays.copyOf(keptEnds, count);
        Map<String, String[]> keys = new LinkedHashMap<>();
        keptKeys.forEach((e, k) -> keys.put(e, Arrays.copyOf(k, rows.length)));
        for (View vp : views) {
            vp.keys = keys.get(vp.entity); // views of one entity share its keys
        }
    }

    /**
     * The rows' buckets in {@code vp}'s table, which rows its warehouse holds whole, and the hours
     * the windows of those rows touch.
     */
    private void planHours(SluiceConfig config, View vp) throws IOException {
        long hour = HourPartitioner.hourMillis();
        int n = rows.length;
        vp.buckets = new int[n];
        vp.missing = new long[n];
        // Each row reads events in [floor_s(t) − W, t), W its longest window or the view's ttl
        // (which decides NOT_FOUND), as whole hours: an event is before t exactly when it is
        // before ceil_ms(t).
        long[] from = new long[n];
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            if (vp.keys[i] == null) {
                vp.buckets[i] = -1; // NOT_FOUND: no event has an empty key
                continue;
            }
            vp.buckets[i] = bucket(vp.table, vp.keys[i]);
            from[i] = Windows.floor(vp.from(tails[i]), hour);
            first = Math.min(first, from[i]);
            last = Math.max(last, ends[i]);
        }
        vp.coverage = CompleteHours.of(config, vp.table, first, last);
        List<long[]> spans = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            vp.missing[i] =
                    vp.keys[i] == null ? CompleteHours.NONE : vp.coverage.missing(from[i], ends[i]);
            if (vp.answered(i)) {
                spans.add(new long[] {from[i], ends[i]});
            }
        }
        // The union of the answered rows' spans, as whole hours.
        spans.sort((a, b) -> Long.compare(a[0], b[0]));
        long next = Long.MIN_VALUE;
        for (long[] s : spans) {
            for (long h = Math.max(s[0], next); h < s[1]; h += hour) {
                vp.hours.add(h);
            }
            next = Math.max(next, Windows.floor(s[1] - 1, hour) + hour);
        }
        Path warehouse = Path.of(config.tablePath("warehouse", vp.table.name()));
        for (long h : vp.hours) {
            String partition = HourPartitioner.partition(h);
            Path manifest = warehouse.resolve(partition).resolve(WarehouseManifest.NAME);
            if (Files.isRegularFile(manifest)) {
                partitions.add(vp.table.name() + "/" + partition);
                manifests.add(
                        vp.table.name()
                                + "/"
                                + partition
                                + " "
                                + ArtifactStore.sha256(Files.readAllBytes(manifest)));
            }
        }
    }

    /** How many rows, a few of them, of one view that miss one hour. */
    private static final class Missing {
        final View view;
        final long hour;
        int rows;
        final List<Integer> examples = new ArrayList<>(); // output rows

        Missing(View view, long hour) {
            this.view = view;
            this.hour = hour;
        }
    }

    private static final int GROUPS_SHOWN = 5;
    private static final int ROWS_SHOWN = 3;

    /**
     * Throws unless every row with a key is answered from whole data, naming how many rows are not,
     * per view and missing hour (the first few spine rows with their entity and time), and why the
     * hour is not whole.
     */
    private void refuseIncomplete(Spine spine, Schema.Field time) {
        Map<String, Missing> groups = new LinkedHashMap<>();
        BitSet incomplete = new BitSet(rows.length);
        for (View vp : views) {
            for (int i = 0; i < rows.length; i++) {
                long h = vp.missing[i];
                if (h == CompleteHours.NONE) {
                    continue;
                }
                incomplete.set(i);
                Missing m =
                        groups.computeIfAbsent(vp.view.name() + " " + h, k -> new Missing(vp, h));
                m.rows++;
                if (m.examples.size() < ROWS_SHOWN) {
                    m.examples.add(i);
                }
            }
        }
        if (groups.isEmpty()) {
            return;
        }
        List<Missing> sorted = new ArrayList<>(groups.values());
        sorted.sort(
                (a, b) ->
                        a.hour != b.hour
                                ? Long.compare(a.hour, b.hour)
                                : a.view.view.name().compareTo(b.view.view.name()));
        StringBuilder message =
                new StringBuilder(
                        String.format(
                                "%,d of %,d spine rows need events that the warehouse does not"
                                        + " hold whole, so their features would be computed from"
                                        + " part of the data:",
                                incomplete.cardinality(), rows.length));
        for (Missing m : sorted.subList(0, Math.min(GROUPS_SHOWN, sorted.size()))) {
            CompleteHours.Coverage c = m.view.coverage;
            message.append(
                    String.format(
                            "%n  view %s, table %s: hour %s %s%s; %,d row%s, e.g. ",
                            m.view.view.name(),
                            m.view.table.name(),
                            HourPartitioner.partition(m.hour),
                            c.why(m.hour).text,
                            m.hour >= c.until() ? " (" + c.describe() + ")" : "",
                            m.rows,
                            m.rows == 1 ? "" : "s"));
            List<String> examples = new ArrayList<>();
            for (int i : m.examples) {
                examples.add(
                        String.format(
                                "row %d (%s %s at %s)",
                                rows[i] + 1,
                                m.view.entity,
                                m.view.keys[i],
                                spine.time(rows[i], time)));
            }
            message.append(String.join(", ", examples));
        }
        if (sorted.size() > GROUPS_SHOWN) {
            message.append(
                    String.format(
                            "%n  and %d more (view, hour) pairs", sorted.size() - GROUPS_SHOWN));
        }
        message.append(
                String.format(
                        "%nWait until those hours are complete and compacted, leave those rows out"
                                + " of the spine, or pass --incomplete mark to keep them with null"
                                + " features of status INCOMPLETE."));
        throw new IncompleteDataException(message.toString(), incomplete.cardinality());
    }

    private static int bucket(TableConfig table, String key) {
        Schema.Type type = Spine.nonNull(table.schema().getField(table.key()).schema()).getType();
        Object typed =
                switch (type) {
                    case INT -> Integer.parseInt(key);
                    case LONG -> Long.parseLong(key);
                    default -> key;
                };
        return HiveBucketing.bucket(typed, table.buckets());
    }
}
