package io.sluice.features.online;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
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
        return read(new ReadPlan(resolve(features), entities, at, clock.getAsLong(), Set.of()));
    }

    /**
     * {@link #read(List, List, Instant)} at a time the caller chose ({@code get --at}, the server's
     * {@code "at"}), answered only where the store is whole: a view that the features job has not
     * written through {@code at} ({@link OnlineStore#writtenThrough}: its watermark is earlier, or
     * it has marked none) is {@link Status#INCOMPLETE} in all its features, rather than answered
     * from the events applied so far. A read at now, the server's usual one, does not ask: the
     * features job's watermark is always somewhat behind now, and serving answers with what the
     * store holds. Costs one more store round trip per view.
     */
    public List<Vector> readAsOf(List<FeatureRef> features, List<String> entities, Instant at)
            throws IOException {
        List<FeatureRefs.Resolved> resolved = resolve(features);
        // Events before `at` are those at or before the millisecond before its ceiling.
        long needed = Windows.ceilMillis(at) - 1;
        Set<String> behind = new HashSet<>();
        Set<String> asked = new HashSet<>();
        for (FeatureRefs.Resolved r : resolved) {
            String view = r.view().name();
            if (asked.add(view)) {
                OptionalLong through = store.writtenThrough(view);
                if (through.isEmpty() || through.getAsLong() < needed) {
                    behind.add(view);
                }
            }
        }
        return read(new ReadPlan(resolved, entities, at, clock.getAsLong(), behind));
    }

    private List<Vector> read(ReadPlan plan) throws IOException {
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
        ReadPlan plan = new ReadPlan(resolve(features), entities, at, clock.getAsLong(), Set.of());
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
