package io.sluice.features.online;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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

    public FeatureReader(OnlineStore store, List<ViewDef> views, LongSupplier clock) {
        this.store = store;
        this.views = List.copyOf(views);
        this.clock = clock;
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
        List<FeatureRefs.Resolved> resolved = FeatureRefs.resolve(views, features);
        long now = clock.getAsLong();
        long tail = Windows.floorMillis(at);
        long headEnd = Windows.ceilMillis(at);
        if (headEnd > now) { // at > now
            throw new IllegalArgumentException(
                    "at "
                            + at
                            + " is later than now ("
                            + Instant.ofEpochMilli(now)
                            + "): the online store has no data from the future");
        }
        // The views asked for that are in retention at `at`, each with its features' covers.
        Map<String, Asked> asked = new LinkedHashMap<>();
        List<Windows.Cover> covers = new ArrayList<>(resolved.size());
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
            asked.computeIfAbsent(view.name(), n -> new Asked(view)).add(cover);
        }
        // First read: every window's tiles, for every entity and view.
        List<OnlineStore.RangeRead> reads = new ArrayList<>();
        Map<String, List<OnlineStore.TileRange>> ranges = new HashMap<>();
        asked.forEach((name, a) -> ranges.put(name, a.ranges()));
        for (String entity : entities) {
            for (String view : asked.keySet()) {
                reads.add(new OnlineStore.RangeRead(view, entity, ranges.get(view)));
            }
        }
        List<OnlineStore.Found> found = reads.isEmpty() ? List.of() : store.read(reads, now);
        Map<String, Fetched> fetched = new HashMap<>();
        List<OnlineStore.RangeRead> unsure = new ArrayList<>();
        Map<String, Boolean> present = new HashMap<>();
        for (int i = 0; i < reads.size(); i++) {
            OnlineStore.RangeRead read = reads.get(i);
            ViewDef view = asked.get(read.view()).view;
            Fetched f = new Fetched(found.get(i));
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
        // Second read, only for entities the windows' tiles show nothing of: their retention.
        if (!unsure.isEmpty()) {
            List<OnlineStore.Found> more = store.read(unsure, now);
            for (int i = 0; i < unsure.size(); i++) {
                OnlineStore.RangeRead read = unsure.get(i);
                ViewDef view = asked.get(read.view()).view;
                present.put(
                        key(read.view(), read.entity()),
                        Windows.present(view, tail, headEnd, new Fetched(more.get(i))));
            }
        }
        // Features of one view, partial key and cover (say avg, min and max over one window of
        // one field) merge the same partial: merge it once per entity.
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
    private static Asked retention(ViewDef view, long tail, long headEnd) {
        Asked a = new Asked(view);
        a.add(
                Windows.cover(
                        view.presence(), tail, headEnd, view.tileMillis(), view.coarseMillis()));
        return a;
    }

    /** One view's covers at one time: what to read of each of its entities. */
    private static final class Asked {
        final ViewDef view;
        final TreeSet<Long> fine = new TreeSet<>();
        final TreeSet<Long> coarse = new TreeSet<>();
        final TreeSet<Long> mid = new TreeSet<>();

        /** The covers added: the features of one window share one. */
        private final Set<Windows.Cover> covers = new HashSet<>();

        Asked(ViewDef view) {
            this.view = view;
        }

        void add(Windows.Cover cover) {
            if (!covers.add(cover)) {
                return;
            }
            fine.addAll(cover.fine());
            coarse.addAll(cover.coarse());
            mid.addAll(cover.mid());
            if (cover.hasHead()) {
                fine.add(cover.headStart());
            }
        }

        /** The tiles as runs of consecutive starts. */
        List<OnlineStore.TileRange> ranges() {
            List<OnlineStore.TileRange> ranges = new ArrayList<>();
            runs(OnlineStore.Level.FINE, fine, view.tileMillis(), ranges);
            runs(OnlineStore.Level.MID, mid, view.midMillis(), ranges);
            runs(OnlineStore.Level.COARSE, coarse, view.coarseMillis(), ranges);
            return ranges;
        }

        private static void runs(
                OnlineStore.Level level,
                TreeSet<Long> starts,
                long step,
                List<OnlineStore.TileRange> into) {
            long from = 0;
            long to = 0;
            boolean open = false;
            for (long s : starts) {
                if (open && s == to) {
                    to += step;
                    continue;
                }
                if (open) {
                    into.add(new OnlineStore.TileRange(level, from, to, step));
                }
                from = s;
                to = s + step;
                open = true;
            }
            if (open) {
                into.add(new OnlineStore.TileRange(level, from, to, step));
            }
        }
    }

    /**
     * What the reader asks the store for first, for {@code entities} of {@code view} read at {@code
     * at}: the runs of tiles the windows of {@code features} cover, per entity (for benchmarks that
     * measure the store's own read of the same objects).
     */
    public static List<OnlineStore.RangeRead> windowReads(
            ViewDef view, List<FeatureDef> features, List<String> entities, long at) {
        Asked asked = new Asked(view);
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

    /**
     * The tiles one read found of one (view, entity), decoded once each when first used, read as a
     * window's tiles: only the tiles that exist are visited.
     */
    private static final class Fetched implements Windows.TileReader {
        private final OnlineStore.Found found;
        private final Map<Long, Tile> fine = new HashMap<>();
        private final Map<Long, Map<String, Partial>> coarse = new HashMap<>();
        private final Map<Long, Map<String, Partial>> mid = new HashMap<>();

        /**
         * Whole fine tiles' partials by partial key, then start: features sharing a key share it.
         */
        private final Map<String, Map<Long, Partial>> finePartials = new HashMap<>();

        /** Heads' partials by partial key; a read cuts every head at the same place. */
        private final Map<String, Partial> heads = new HashMap<>();

        private long headStart = Long.MIN_VALUE;
        private long headEnd = Long.MIN_VALUE;

        Fetched(OnlineStore.Found found) {
            this.found = found;
        }

        private Tile fineTile(long start) {
            return fine.computeIfAbsent(
                    start,
                    s -> {
                        byte[] p = found.fine().get(s);
                        return p == null ? new Tile(s) : TileCodec.decodeFine(s, p);
                    });
        }

        private Map<String, Partial> coarsePartials(long start) {
            return partials(coarse, found.coarse(), start);
        }

        private Map<String, Partial> midPartials(long start) {
            return partials(mid, found.mid(), start);
        }

        private static Map<String, Partial> partials(
                Map<Long, Map<String, Partial>> decoded, Map<Long, byte[]> payloads, long start) {
            Map<String, Partial> partials = decoded.get(start);
            if (partials == null) {
                byte[] p = payloads.get(start);
                partials = p == null ? Map.of() : TileCodec.decodeCoarse(p);
                decoded.put(start, partials);
            }
            return partials;
        }

        /**
         * Whether a tile found shows the entity known at the time t with ends {@code tail} and
         * {@code headEnd}: an event in the view's retention before t. False proves nothing: the
         * tiles found are only the windows'.
         */
        boolean showsPresence(ViewDef view, long tail, long headEnd) {
            long head = Windows.floor(tail, view.tileMillis());
            long from = head - view.ttlMillis();
            for (long s : found.coarse().subMap(from, true, head, false).keySet()) {
                Partial p = coarsePartials(s).get(ViewDef.PRESENCE);
                if (p != null && !p.isEmpty()) {
                    return true;
                }
            }
            for (long s : found.mid().subMap(from, true, head, false).keySet()) {
                Partial p = midPartials(s).get(ViewDef.PRESENCE);
                if (p != null && !p.isEmpty()) {
                    return true;
                }
            }
            for (long s : found.fine().subMap(from, true, head, true).keySet()) {
                if (s < head
                        ? fineTile(s).size() > 0
                        : !fineTile(s).partial(view.presence(), headEnd).isEmpty()) {
                    return true;
                }
            }
            return false;
        }

        // Windows only merge what a reader returns, so a partial can be shared by features.
        @Override
        public Partial fine(long start, FeatureDef feature) {
            return finePartials
                    .computeIfAbsent(feature.partialKey(), k -> new HashMap<>())
                    .computeIfAbsent(start, s -> fineTile(s).partial(feature));
        }

        @Override
        public Partial coarse(long start, FeatureDef feature) {
            Partial p = coarsePartials(start).get(feature.partialKey());
            return p == null ? new Partial() : p;
        }

        @Override
        public Partial mid(long start, FeatureDef feature) {
            Partial p = midPartials(start).get(feature.partialKey());
            return p == null ? new Partial() : p;
        }

        @Override
        public Partial head(long start, long before, FeatureDef feature) {
            if (start != headStart || before != headEnd) {
                heads.clear();
                headStart = start;
                headEnd = before;
            }
            return heads.computeIfAbsent(
                    feature.partialKey(), k -> fineTile(start).partial(feature, before));
        }

        @Override
        public long[] fineStarts(long from, long to, long step) {
            return Windows.keys(found.fine().subMap(from, true, to, false).keySet());
        }

        @Override
        public long[] coarseStarts(long from, long to, long step) {
            return Windows.keys(found.coarse().subMap(from, true, to, false).keySet());
        }

        @Override
        public long[] midStarts(long from, long to, long step) {
            return Windows.keys(found.mid().subMap(from, true, to, false).keySet());
        }
    }
}
