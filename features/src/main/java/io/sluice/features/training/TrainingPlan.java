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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.avro.Schema;

/**
 * What a training set reads, decided before anything is read: the spine rows kept (after the
 * sample), per requested view its features and the warehouse hours the rows' windows touch, and per
 * row the bucket of its entity in each view's table. Refuses a request it cannot answer (unknown or
 * repeated features, views of different entities, missing columns, hours that are open or not
 * compacted).
 */
final class TrainingPlan {

    /** One requested view: its features, their output columns, and the hours its rows read. */
    static final class View {
        final ViewDef view;
        final TableConfig table;
        final List<Integer> columns = new ArrayList<>(); // output feature positions
        final List<FeatureDef> features = new ArrayList<>();
        final TreeSet<Long> hours = new TreeSet<>();

        View(ViewDef view, TableConfig table) {
            this.view = view;
            this.table = table;
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
    String[] keys;

    /**
     * Each row's time t, kept at the spine's precision as the two whole milliseconds around it:
     * {@code tails[i] = floor_ms(t)}, where its windows' tails are cut ({@code floor_s(t) =
     * floor_s(tails[i])}), and {@code ends[i] = ceil_ms(t)}, where their heads end ({@code x.ts <
     * t} exactly when {@code x.ts < ends[i]}). Equal when t is a whole millisecond.
     */
    long[] tails;

    long[] ends;
    int[][] buckets; // [view][output row]
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
        Schema.Field key = plan.entityColumn(config, spine);
        plan.selectRows(spine, request, time, key);
        for (int v = 0; v < plan.views.size(); v++) {
            plan.planHours(config, v);
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
                            n ->
                                    new View(
                                            r.view(),
                                            config.table(
                                                            config.featureView(n)
                                                                    .orElseThrow()
                                                                    .source())
                                                    .orElseThrow()));
            if (vp.features.contains(r.feature())) {
                throw new IllegalArgumentException("--features: " + ref + " is named twice");
            }
            vp.features.add(r.feature());
            vp.columns.add(i);
        }
        views.addAll(byName.values());
    }

    /** The spine's column of the views' one entity. */
    private Schema.Field entityColumn(SluiceConfig config, Spine spine) {
        String entity = null;
        Schema.Field key = null;
        for (View vp : views) {
            String e = config.featureView(vp.view.name()).orElseThrow().entity();
            if (entity != null && !entity.equals(e)) {
                throw new IllegalArgumentException(
                        "--features: the views' entities differ ("
                                + entity
                                + ", "
                                + e
                                + "); request features of one entity per training set");
            }
            entity = e;
            key = spine.column(e, "the entity of view " + vp.view.name());
        }
        return key;
    }

    private void selectRows(
            Spine spine, TrainingSetBuilder.Request request, Schema.Field time, Schema.Field key) {
        // Sampling selects by the first view's table: its buckets are what a sample aligns to.
        TableConfig first = views.get(0).table;
        Sample.Selector selector =
                request.sample().map(s -> s.selector(first.buckets())).orElse(null);
        int n = spine.rows().size();
        int[] kept = new int[n];
        String[] keptKeys = new String[n];
        long[] keptTails = new long[n];
        long[] keptEnds = new long[n];
        int count = 0;
        for (int r = 0; r < n; r++) {
            String k = spine.key(r, key);
            Instant t = spine.time(r, time);
            if (selector != null && !selector.selects(k, bucket(first, k))) {
                continue;
            }
            kept[count] = r;
            keptKeys[count] = k;
            keptTails[count] = Windows.floorMillis(t);
            keptEnds[count] = Windows.ceilMillis(t);
            count++;
        }
        rows = Arrays.copyOf(kept, count);
        keys = Arrays.copyOf(keptKeys, count);
        tails = Arrays.copyOf(keptTails, count);
        ends = Arrays.copyOf(keptEnds, count);
        buckets = new int[views.size()][count];
    }

    /** The rows' buckets in view {@code v}'s table, and the hours their windows touch. */
    private void planHours(SluiceConfig config, int v) throws IOException {
        long hour = HourPartitioner.hourMillis();
        View vp = views.get(v);
        // The union of the rows' windows [floor_s(t) − W, t), as whole hours: an event is before
        // t exactly when it is before ceil_ms(t).
        List<long[]> spans = new ArrayList<>(rows.length);
        for (int i = 0; i < rows.length; i++) {
            buckets[v][i] = bucket(vp.table, keys[i]);
            spans.add(new long[] {Windows.floor(vp.from(tails[i]), hour), ends[i]});
        }
        spans.sort((a, b) -> Long.compare(a[0], b[0]));
        long next = Long.MIN_VALUE;
        for (long[] s : spans) {
            for (long h = Math.max(s[0], next); h < s[1]; h += hour) {
                vp.hours.add(h);
            }
            next = Math.max(next, Windows.floor(s[1] - 1, hour) + hour);
        }
        CompleteHours.checkComplete(config, vp.table, vp.hours);
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
