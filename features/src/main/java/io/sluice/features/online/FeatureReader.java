package io.sluice.features.online;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Reads feature vectors from an online store: plans the tiles each requested window needs (coarse
 * for the body, mid and fine at the edges, and the head) as runs per (view, entity), fetches all of
 * them for all entities in one batch, and evaluates each value with the shared library ({@link
 * Windows}), visiting only the tiles that exist. The same code serves every store, so Redis and
 * SQLite cannot disagree.
 */
public final class FeatureReader {

    /** A requested feature, written {@code view:feature}. */
    public record FeatureRef(String view, String feature) {
        /** Parses {@code view:feature}. */
        public static FeatureRef parse(String text) {
            int colon = text.indexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new IllegalArgumentException(
                        "'" + text + "' is not a feature reference like user_purchases:spend_24h");
            }
            return new FeatureRef(text.substring(0, colon), text.substring(colon + 1));
        }

        @Override
        public String toString() {
            return view + ":" + feature;
        }
    }

    /** One entity's values, in the order the features were requested. */
    public record Vector(String entity, List<FeatureValue> values) {}

    private final OnlineStore store;
    private final List<ViewDef> views;
    private final LongSupplier clock;

    /**
     * The views' features by view and feature name: a server resolves every request's references,
     * and scanning 50 features for each of 50 names took a tenth of a read's own time.
     */
    private final Map<String, Map<String, FeatureRefs.Resolved>> byName = new HashMap<>();

    public FeatureReader(OnlineStore store, List<ViewDef> views, LongSupplier clock) {
        this.store = store;
        this.views = List.copyOf(views);
        this.clock = clock;
        for (ViewDef view : this.views) {
            Map<String, FeatureRefs.Resolved> features = new HashMap<>();
            for (FeatureDef f : view.features()) {
                features.putIfAbsent(
                        f.name(),
                        new FeatureRefs.Resolved(new FeatureRef(view.name(), f.name()), view, f));
            }
            byName.putIfAbsent(view.name(), features);
        }
    }

    /** {@link FeatureRefs#resolve} against this reader's views, by their names. */
    private List<FeatureRefs.Resolved> resolve(List<FeatureRef> features) {
        List<FeatureRefs.Resolved> resolved = new ArrayList<>(features.size());
        for (FeatureRef ref : features) {
            Map<String, FeatureRefs.Resolved> view = byName.get(ref.view());
            FeatureRefs.Resolved r = view == null ? null : view.get(ref.feature());
            if (r == null) {
                // Unknown: the shared resolver refuses it with its message of what exists.
                return FeatureRefs.resolve(views, features);
            }
            resolved.add(r);
        }
        return resolved;
    }

    /**
     * The requested features of each entity at {@code at} (epoch millis), each with its status: an
     * entity with no event in a view's retention before {@code at} is {@link Status#NOT_FOUND} in
     * all of that view's features. One call costs at most two store reads, however many entities:
     * the tiles of every requested window, then, only for entities those tiles do not show to be
     * known, the tiles of the view's retention.
     *
     * @throws IllegalArgumentException naming an unknown view or feature, or when {@code at} is
     *     later than now: the store has not seen that time yet, so no answer would be whole
     */
    public List<Vector> read(List<FeatureRef> features, List<String> entities, long at)
            throws IOException {
        return read(features, entities, Instant.ofEpochMilli(at));
    }

    /**
     * {@link #read(List, List, long)} at an instant that may carry micro- or nanoseconds (an ISO
     * {@code at} such as {@code 2026-11-21T03:16:59.999409Z}), kept at that precision: each window
     * is {@code floor_s(at) − W ≤ x.ts < at}, as the training-set builder computes it for a spine
     * row at the same time. Rounding {@code at} to a millisecond first would be wrong at one end of
     * the window ({@link Windows}).
     */
    public List<Vector> read(List<FeatureRef> features, List<String> entities, Instant at)
            throws IOException {
        Plan plan = new Plan(resolve(features), entities, at, clock.getAsLong());
        if (!plan.reads.isEmpty()) {
            List<OnlineStore.Found> found = store.read(plan.reads, plan.now);
            for (int i = 0; i < found.size(); i++) {
                plan.take(i, found.get(i));
            }
            List<OnlineStore.RangeRead> unsure = plan.unsure();
            if (!unsure.isEmpty()) {
                List<OnlineStore.Found> more = store.read(unsure, plan.now);
                for (int i = 0; i < more.size(); i++) {
                    plan.settle(i, more.get(i));
                }
            }
        }
        return plan.vectors();
    }

    /**
     * {@link #read(List, List, Instant)} without waiting for the store: the answer completes the
     * returned stage. Each entity's tiles are decoded and its values evaluated on {@code executor}
     * (an event loop's, for a server) as the store's answer for it arrives, while the store still
     * sends the others. With a store whose reads block ({@link OnlineStore#readsWithoutBlocking()}
     * false) it all runs in the caller's thread first.
     *
     * @throws IllegalArgumentException at once, for an unknown view or feature or an {@code at}
     *     later than now
     */
    public CompletionStage<List<Vector>> readAsync(
            List<FeatureRef> features, List<String> entities, Instant at, Executor executor) {
        Plan plan = new Plan(resolve(features), entities, at, clock.getAsLong());
        if (plan.reads.isEmpty()) {
            return CompletableFuture.completedFuture(plan.vectors());
        }
        return store.readAsync(plan.reads, plan.now, executor, plan::take)
                .thenCompose(
                        done -> {
                            // Second read, only for entities the windows' tiles show nothing
                            // of: their retention.
                            List<OnlineStore.RangeRead> unsure = plan.unsure();
                            if (unsure.isEmpty()) {
                                return CompletableFuture.completedFuture(plan.vectors());
                            }
                            return store.readAsync(unsure, plan.now, executor, plan::settle)
                                    .thenApply(more -> plan.vectors());
                        });
    }

    /**
     * One read's tiles and answers: the covers of the requested features at {@code at}, the tiles
     * they need for every (entity, view), then each entity's values, evaluated as the store's
     * answers are taken. Answers may be taken on several threads (a Redis Cluster's node
     * connections), one at a time.
     */
    private static final class Plan {
        final List<FeatureRefs.Resolved> resolved;
        final List<String> entities;
        final long now;
        final long tail;
        final long headEnd;

        /** The views asked for that are in retention at `at`, each with its features' covers. */
        final Map<String, AskedTiles> asked = new LinkedHashMap<>();

        final List<Windows.Cover> covers;

        /** The requested features of each view asked for, by their index among the requested. */
        final int[][] featuresOf;

        /**
         * Each requested feature's group: features of one view, partial key and cover (say avg, min
         * and max over one window of one field) merge the same partial, once per entity.
         */
        final int[] group;

        final int groups;

        /** First read: every window's tiles; read {@code e × views + v} is entity e's of view v. */
        final List<OnlineStore.RangeRead> reads = new ArrayList<>();

        /** Each entity's values, by requested feature. */
        final FeatureValue[][] values;

        /** The first reads that do not show their entity known, and their tiles. */
        final List<Integer> unsure = new ArrayList<>();

        final Map<Integer, FetchedTiles> unsureTiles = new HashMap<>();

        Plan(List<FeatureRefs.Resolved> resolved, List<String> entities, Instant at, long now) {
            this.resolved = resolved;
            this.entities = entities;
            this.now = now;
            tail = Windows.floorMillis(at);
            headEnd = Windows.ceilMillis(at);
            if (headEnd > now) { // at > now
                throw new IllegalArgumentException(
                        "at "
                                + at
                                + " is later than now ("
                                + Instant.ofEpochMilli(now)
                                + "): the online store has no data from the future");
            }
            covers = new ArrayList<>(resolved.size());
            values = new FeatureValue[entities.size()][resolved.size()];
            for (int i = 0; i < resolved.size(); i++) {
                FeatureRefs.Resolved r = resolved.get(i);
                ViewDef view = r.view();
                if (!inRetention(view, tail, now)) {
                    covers.add(null);
                    for (FeatureValue[] v : values) {
                        v[i] = new FeatureValue(null, Status.OUT_OF_RETENTION, -1);
                    }
                    continue;
                }
                Windows.Cover cover =
                        Windows.cover(
                                r.feature(), tail, headEnd, view.tileMillis(), view.coarseMillis());
                covers.add(cover);
                asked.computeIfAbsent(view.name(), n -> new AskedTiles(view)).add(cover);
            }
            List<String> views = new ArrayList<>(asked.keySet());
            featuresOf = new int[views.size()][];
            group = new int[resolved.size()];
            Map<List<Object>, Integer> byKey = new HashMap<>();
            for (int v = 0; v < views.size(); v++) {
                List<Integer> of = new ArrayList<>();
                for (int i = 0; i < resolved.size(); i++) {
                    FeatureRefs.Resolved r = resolved.get(i);
                    if (covers.get(i) != null && r.view().name().equals(views.get(v))) {
                        of.add(i);
                        group[i] =
                                byKey.computeIfAbsent(
                                        List.of(
                                                r.view().name(),
                                                r.feature().partialKey(),
                                                covers.get(i)),
                                        k -> byKey.size());
                    }
                }
                featuresOf[v] = of.stream().mapToInt(Integer::intValue).toArray();
            }
            groups = byKey.size();
            List<List<OnlineStore.TileRange>> ranges = new ArrayList<>();
            asked.values().forEach(a -> ranges.add(a.ranges()));
            for (String entity : entities) {
                for (int v = 0; v < views.size(); v++) {
                    reads.add(new OnlineStore.RangeRead(views.get(v), entity, ranges.get(v)));
                }
            }
        }

        private ViewDef view(int read) {
            return asked.get(reads.get(read).view()).view;
        }

        /**
         * Takes what first read {@code read} found: evaluates its entity's values of its view, or
         * keeps its tiles until its retention says whether the entity is known.
         */
        synchronized void take(int read, OnlineStore.Found found) {
            FetchedTiles tiles = new FetchedTiles(found);
            if (tiles.showsPresence(view(read), tail, headEnd)) {
                evaluate(read, tiles);
            } else {
                unsure.add(read);
                unsureTiles.put(read, tiles);
            }
        }

        /** The reads of the retention of the entities whose windows' tiles do not show them. */
        synchronized List<OnlineStore.RangeRead> unsure() {
            unsure.sort(null); // answers are taken in any order; the second read's in this one
            List<OnlineStore.RangeRead> more = new ArrayList<>(unsure.size());
            for (int read : unsure) {
                OnlineStore.RangeRead r = reads.get(read);
                more.add(
                        new OnlineStore.RangeRead(
                                r.view(),
                                r.entity(),
                                retention(view(read), tail, headEnd).ranges()));
            }
            return more;
        }

        /** Takes what the retention read of {@code unsure().get(i)} found. */
        synchronized void settle(int i, OnlineStore.Found found) {
            int read = unsure.get(i);
            if (Windows.present(view(read), tail, headEnd, new FetchedTiles(found))) {
                evaluate(read, unsureTiles.get(read));
            } else {
                int entity = read / featuresOf.length;
                for (int f : featuresOf[read % featuresOf.length]) {
                    values[entity][f] = Windows.notFound();
                }
            }
        }

        /** The values of first read {@code read}'s view for its entity, from its tiles. */
        private void evaluate(int read, FetchedTiles tiles) {
            int entity = read / featuresOf.length;
            Partial[] merged = new Partial[groups];
            for (int f : featuresOf[read % featuresOf.length]) {
                FeatureRefs.Resolved r = resolved.get(f);
                Partial p = merged[group[f]];
                if (p == null) {
                    p = Windows.partial(r.feature(), covers.get(f), tiles);
                    merged[group[f]] = p;
                }
                values[entity][f] = p.value(r.feature());
            }
        }

        /** Every entity's values, once every answer was taken. */
        synchronized List<Vector> vectors() {
            List<Vector> vectors = new ArrayList<>(entities.size());
            for (int e = 0; e < entities.size(); e++) {
                vectors.add(new Vector(entities.get(e), Arrays.asList(values[e])));
            }
            return vectors;
        }
    }

    /** Whether a time whose tail is {@code tail} is within {@code view}'s ttl of {@code now}. */
    private static boolean inRetention(ViewDef view, long tail, long now) {
        return tail >= now - view.ttlMillis(); // at ≥ now − ttl, now − ttl being whole millis
    }

    /**
     * The tiles that say whether an entity is known at the time with ends {@code tail} and {@code
     * headEnd}: its view's retention.
     */
    private static AskedTiles retention(ViewDef view, long tail, long headEnd) {
        AskedTiles a = new AskedTiles(view);
        a.add(
                Windows.cover(
                        view.presence(), tail, headEnd, view.tileMillis(), view.coarseMillis()));
        return a;
    }

    /**
     * What the reader asks the store for first, for {@code entities} of {@code view} read at {@code
     * at}: the runs of tiles the windows of {@code features} cover, per entity (for benchmarks that
     * measure the store's own read of the same objects).
     */
    public static List<OnlineStore.RangeRead> windowReads(
            ViewDef view, List<FeatureDef> features, List<String> entities, long at) {
        AskedTiles asked = new AskedTiles(view);
        for (FeatureDef f : features) {
            asked.add(Windows.cover(f, at, view.tileMillis(), view.coarseMillis()));
        }
        List<OnlineStore.TileRange> ranges = asked.ranges();
        List<OnlineStore.RangeRead> reads = new ArrayList<>(entities.size());
        for (String entity : entities) {
            reads.add(new OnlineStore.RangeRead(view.name(), entity, ranges));
        }
        return reads;
    }
}
