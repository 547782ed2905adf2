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
            List<OnlineStore.RangeRead> unsure = plan.sort(store.read(plan.reads, plan.now));
            if (!unsure.isEmpty()) {
                plan.settle(unsure, store.read(unsure, plan.now));
            }
        }
        return plan.vectors();
    }

    /**
     * {@link #read(List, List, Instant)} without waiting for the store: the answer completes the
     * returned stage, and the store's answers are decoded and evaluated on {@code executor} (an
     * event loop's, for a server). With a store whose reads block ({@link
     * OnlineStore#readsWithoutBlocking()} false) it all runs in the caller's thread first.
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
        return store.readAsync(plan.reads, plan.now, executor)
                .thenCompose(
                        found -> {
                            // Second read, only for entities the windows' tiles show nothing
                            // of: their retention.
                            List<OnlineStore.RangeRead> unsure = plan.sort(found);
                            if (unsure.isEmpty()) {
                                return CompletableFuture.completedFuture(plan.vectors());
                            }
                            return store.readAsync(unsure, plan.now, executor)
                                    .thenApply(
                                            more -> {
                                                plan.settle(unsure, more);
                                                return plan.vectors();
                                            });
                        });
    }

    /**
     * One read's tiles and answers: the covers of the requested features at {@code at}, the tiles
     * they need for every entity, then what the store found of them.
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

        /** First read: every window's tiles, for every entity and view. */
        final List<OnlineStore.RangeRead> reads = new ArrayList<>();

        final Map<String, FetchedTiles> fetched = new HashMap<>();
        final Map<String, Boolean> present = new HashMap<>();

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
            for (FeatureRefs.Resolved r : resolved) {
                ViewDef view = r.view();
                if (!inRetention(view, tail, now)) {
                    covers.add(null);
                    continue;
                }
                Windows.Cover cover =
                        Windows.cover(
                                r.feature(), tail, headEnd, view.tileMillis(), view.coarseMillis());
                covers.add(cover);
                asked.computeIfAbsent(view.name(), n -> new AskedTiles(view)).add(cover);
            }
            Map<String, List<OnlineStore.TileRange>> ranges = new HashMap<>();
            asked.forEach((name, a) -> ranges.put(name, a.ranges()));
            for (String entity : entities) {
                for (String view : asked.keySet()) {
                    reads.add(new OnlineStore.RangeRead(view, entity, ranges.get(view)));
                }
            }
        }

        /**
         * Keeps what the first read found; returns the reads of the retention of the entities whose
         * windows' tiles do not show them to be known.
         */
        List<OnlineStore.RangeRead> sort(List<OnlineStore.Found> found) {
            List<OnlineStore.RangeRead> unsure = new ArrayList<>();
            for (int i = 0; i < reads.size(); i++) {
                OnlineStore.RangeRead read = reads.get(i);
                ViewDef view = asked.get(read.view()).view;
                FetchedTiles f = new FetchedTiles(found.get(i));
                fetched.put(key(read.view(), read.entity()), f);
                if (f.showsPresence(view, tail, headEnd)) {
                    present.put(key(read.view(), read.entity()), true);
                } else {
                    unsure.add(
                            new OnlineStore.RangeRead(
                                    read.view(),
                                    read.entity(),
                                    retention(view, tail, headEnd).ranges()));
                }
            }
            return unsure;
        }

        /** Whether each entity of {@code unsure} is known, from its retention's tiles. */
        void settle(List<OnlineStore.RangeRead> unsure, List<OnlineStore.Found> more) {
            for (int i = 0; i < unsure.size(); i++) {
                OnlineStore.RangeRead read = unsure.get(i);
                ViewDef view = asked.get(read.view()).view;
                present.put(
                        key(read.view(), read.entity()),
                        Windows.present(view, tail, headEnd, new FetchedTiles(more.get(i))));
            }
        }

        /** Every entity's values, from the tiles fetched. */
        List<Vector> vectors() {
            // Features of one view, partial key and cover (say avg, min and max over one window
            // of one field) merge the same partial: merge it once per entity.
            int[] group = new int[resolved.size()];
            Map<List<Object>, Integer> groups = new HashMap<>();
            for (int i = 0; i < resolved.size(); i++) {
                FeatureRefs.Resolved r = resolved.get(i);
                group[i] =
                        covers.get(i) == null
                                ? -1
                                : groups.computeIfAbsent(
                                        List.of(
                                                r.view().name(),
                                                r.feature().partialKey(),
                                                covers.get(i)),
                                        k -> groups.size());
            }
            List<Vector> vectors = new ArrayList<>(entities.size());
            Partial[] merged = new Partial[groups.size()];
            for (String entity : entities) {
                Arrays.fill(merged, null);
                Map<String, String> keys = new HashMap<>();
                List<FeatureValue> values = new ArrayList<>(resolved.size());
                for (int i = 0; i < resolved.size(); i++) {
                    FeatureRefs.Resolved r = resolved.get(i);
                    if (covers.get(i) == null) {
                        values.add(new FeatureValue(null, Status.OUT_OF_RETENTION, -1));
                    } else if (!present.get(
                            keys.computeIfAbsent(r.view().name(), v -> key(v, entity)))) {
                        values.add(Windows.notFound());
                    } else {
                        Partial p = merged[group[i]];
                        if (p == null) {
                            p =
                                    Windows.partial(
                                            r.feature(),
                                            covers.get(i),
                                            fetched.get(keys.get(r.view().name())));
                            merged[group[i]] = p;
                        }
                        values.add(p.value(r.feature()));
                    }
                }
                vectors.add(new Vector(entity, values));
            }
            return vectors;
        }
    }

    private static String key(String view, String entity) {
        return view + '\u0000' + entity;
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
