package io.sluice.features.training;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.CachingTileReader;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.Windows;
import io.sluice.features.offline.WarehouseEvents;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The point-in-time step: each planned row's features as {@code value(f, e, t)}, computed by the
 * shared window library ({@link Windows}, {@link EntityTiles}) from the warehouse's events, one
 * task per (view, bucket), each reading only that bucket's files of the hours its rows need. A row
 * with no key in a view's entity column is {@link Status#NOT_FOUND} there; one whose window the
 * warehouse does not hold whole (the plan marks it) is {@link Status#INCOMPLETE}, and nothing is
 * read for it.
 */
final class PointInTime {

    /** The values computed for a plan. */
    static final class Computed {
        final Object[][] values; // [output row][feature]
        final Status[][] status;
        final List<Path> files = new ArrayList<>();
        final Map<String, Map<Status, Long>> statuses = new LinkedHashMap<>();

        Computed(int rows, int features) {
            values = new Object[rows][features];
            status = new Status[rows][features];
        }
    }

    private PointInTime() {}

    /** Computes every row of {@code plan} on {@code threads} threads. */
    static Computed compute(SluiceConfig config, TrainingPlan plan, int threads)
            throws IOException {
        int rows = plan.rows.length;
        Computed out = new Computed(rows, plan.features.size());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Path>>> tasks = new ArrayList<>();
            for (int v = 0; v < plan.views.size(); v++) {
                TrainingPlan.View vp = plan.views.get(v);
                Map<Integer, List<Integer>> byBucket = new HashMap<>();
                for (int i = 0; i < rows; i++) {
                    if (vp.answered(i)) {
                        byBucket.computeIfAbsent(vp.buckets[i], b -> new ArrayList<>()).add(i);
                    } else {
                        // No key: no event is its entity's. Else: not answered from part of it.
                        Status status =
                                vp.keys[i] == null
                                        ? Windows.notFound().status()
                                        : Status.INCOMPLETE;
                        for (int column : vp.columns) {
                            out.values[i][column] = null;
                            out.status[i][column] = status;
                        }
                    }
                }
                WarehouseEvents warehouse =
                        new WarehouseEvents(
                                vp.table, Path.of(config.tablePath("warehouse", vp.table.name())));
                for (var e : byBucket.entrySet()) {
                    tasks.add(
                            pool.submit(
                                    () ->
                                            bucket(
                                                    vp,
                                                    warehouse,
                                                    e.getKey(),
                                                    e.getValue(),
                                                    plan,
                                                    out)));
                }
            }
            for (Future<List<Path>> t : tasks) {
                out.files.addAll(t.get());
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            pool.shutdownNow();
        }
        out.files.sort(null);
        countStatuses(plan, out);
        return out;
    }

    private static void countStatuses(TrainingPlan plan, Computed out) {
        for (FeatureRefs.Resolved r : plan.features) {
            out.statuses.put(r.ref().toString(), new EnumMap<>(Status.class));
        }
        for (int i = 0; i < plan.rows.length; i++) {
            for (int c = 0; c < plan.features.size(); c++) {
                out.statuses
                        .get(plan.features.get(c).ref().toString())
                        .merge(out.status[i][c], 1L, Long::sum);
            }
        }
    }

    /** The values of one view for the rows of one bucket; returns the files it read. */
    private static List<Path> bucket(
            TrainingPlan.View vp,
            WarehouseEvents warehouse,
            int bucket,
            List<Integer> rows,
            TrainingPlan plan,
            Computed out)
            throws IOException {
        Map<String, EntityTiles> tiles = new HashMap<>();
        List<Path> files = read(vp, warehouse, bucket, rows, plan, tiles);
        // Rows of one entity together, so its tile partials are merged once for all of them.
        List<Integer> ordered = new ArrayList<>(rows);
        String[] keys = vp.keys;
        ordered.sort((a, b) -> keys[a].compareTo(keys[b]));
        String current = null;
        CachingTileReader reader = null;
        for (int i : ordered) {
            if (!keys[i].equals(current)) {
                current = keys[i];
                reader = new CachingTileReader(tiles.get(current));
            }
            boolean known = Windows.present(vp.view, plan.tails[i], plan.ends[i], reader);
            for (int f = 0; f < vp.features.size(); f++) {
                FeatureValue value =
                        known
                                ? Windows.value(
                                        vp.features.get(f),
                                        plan.tails[i],
                                        plan.ends[i],
                                        vp.view.tileMillis(),
                                        vp.view.coarseMillis(),
                                        reader)
                                : Windows.notFound();
                int column = vp.columns.get(f);
                out.values[i][column] = value.value();
                out.status[i][column] = value.status();
            }
        }
        return files;
    }

    /**
     * Reads the bucket's files of the hours the rows need into each entity's tiles; returns the
     * files read.
     */
    private static List<Path> read(
            TrainingPlan.View vp,
            WarehouseEvents warehouse,
            int bucket,
            List<Integer> rows,
            TrainingPlan plan,
            Map<String, EntityTiles> tiles)
            throws IOException {
        long hour = HourPartitioner.hourMillis();
        TreeSet<Long> hours = new TreeSet<>();
        Map<String, List<EventEntry>> events = new HashMap<>();
        for (int i : rows) {
            long from = vp.from(plan.tails[i]);
            hours.addAll(vp.hours.subSet(Windows.floor(from, hour), true, plan.ends[i], false));
            events.computeIfAbsent(vp.keys[i], k -> new ArrayList<>());
        }
        List<Path> files = new ArrayList<>();
        for (long h : hours) {
            Path file = warehouse.bucketFile(h, bucket);
            if (file != null) {
                files.add(file);
                warehouse.scan(file, vp.view, events.keySet(), (k, e) -> events.get(k).add(e));
            }
        }
        // Hours in order, each file sorted by (key, time, id): each entity's events are ordered.
        events.forEach(
                (k, list) -> {
                    EntityTiles t = new EntityTiles(vp.view.tileMillis(), vp.view.coarseMillis());
                    t.addAll(list);
                    tiles.put(k, t);
                });
        return files;
    }
}
