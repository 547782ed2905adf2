package io.sluice.features.online;

import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.FeatureReader.Vector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One read's tiles and answers: the covers of the requested features at {@code at}, the tiles they
 * need for every (entity, view), then each entity's values, evaluated as the store's answers are
 * taken. Answers may be taken on several threads (a Redis Cluster's node connections), one at a
 * time.
 */
final class ReadPlan {
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
     * Each requested feature's group: features of one view, partial key and cover (say avg, min and
     * max over one window of one field) merge the same partial, once per entity.
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

    /**
     * @param behind the views the features job has not written through {@code at}: their features
     *     are {@link Status#INCOMPLETE}, unread
     */
    ReadPlan(
            List<FeatureRefs.Resolved> resolved,
            List<String> entities,
            Instant at,
            long now,
            Set<String> behind) {
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
            Status unread =
                    !inRetention(view, tail, now)
                            ? Status.OUT_OF_RETENTION
                            : behind.contains(view.name()) ? Status.INCOMPLETE : null;
            if (unread != null) {
                covers.add(null);
                for (FeatureValue[] v : values) {
                    v[i] = new FeatureValue(null, unread, -1);
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
     * Takes what first read {@code read} found: evaluates its entity's values of its view, or keeps
     * its tiles until its retention says whether the entity is known.
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
                            r.view(), r.entity(), retention(view(read), tail, headEnd).ranges()));
        }
        return more;
    }

    /** Takes what the retention read of {@code unsure().get(i)} found. */
    synchronized void settle(int i, OnlineStore.Found found) {
        int read = unsure.get(i);
        if (WindowReads.present(view(read), tail, headEnd, new FetchedTiles(found))) {
            evaluate(read, unsureTiles.get(read));
        } else {
            int entity = read / featuresOf.length;
            for (int f : featuresOf[read % featuresOf.length]) {
                values[entity][f] = WindowReads.notFound();
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
                p = WindowReads.partial(r.feature(), covers.get(f), tiles);
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
}
