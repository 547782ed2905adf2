package io.sluice.features.online;

import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One view's covers at one time: what to read of each of its entities. Each cover's tiles are kept
 * as the runs they are (its fine, mid and coarse spans, and its head's fine tile), and joined into
 * runs of consecutive starts when read: a request plans this once, however many entities it names,
 * and listing every tile of 50 windows one by one took a sixth of a 100-entity read's time besides
 * the store's in a profile of {@code bench serve}.
 */
final class AskedTiles {
    final ViewDef view;

    /** Per level, the spans {@code [from, to)} of tile starts asked for. */
    private final List<long[]> fine = new ArrayList<>();

    private final List<long[]> mid = new ArrayList<>();
    private final List<long[]> coarse = new ArrayList<>();

    /** The covers added: the features of one window share one. */
    private final Set<Windows.Cover> covers = new HashSet<>();

    AskedTiles(ViewDef view) {
        this.view = view;
    }

    void add(Windows.Cover cover) {
        if (!covers.add(cover)) {
            return;
        }
        span(fine, cover.from(), cover.midFrom());
        span(fine, cover.midTo(), cover.to());
        span(mid, cover.midFrom(), cover.coarseFrom());
        span(mid, cover.coarseTo(), cover.midTo());
        span(coarse, cover.coarseFrom(), cover.coarseTo());
        if (cover.hasHead()) {
            span(fine, cover.headStart(), cover.headStart() + cover.tileSize());
        }
    }

    private static void span(List<long[]> into, long from, long to) {
        if (from < to) {
            into.add(new long[] {from, to});
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

    /**
     * The union of {@code spans}, whose starts are multiples of {@code step}, as runs: each span
     * ends where its last tile does, so spans that touch or overlap join.
     */
    private static void runs(
            OnlineStore.Level level,
            List<long[]> spans,
            long step,
            List<OnlineStore.TileRange> into) {
        if (spans.isEmpty()) {
            return;
        }
        List<long[]> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(s -> s[0]));
        long from = sorted.get(0)[0];
        long to = end(sorted.get(0), step);
        for (int i = 1; i < sorted.size(); i++) {
            long[] s = sorted.get(i);
            if (s[0] > to) {
                into.add(new OnlineStore.TileRange(level, from, to, step));
                from = s[0];
            }
            to = Math.max(to, end(s, step));
        }
        into.add(new OnlineStore.TileRange(level, from, to, step));
    }

    /** The end of a span's last tile: its {@code to} rounded up to a whole tile from its start. */
    private static long end(long[] span, long step) {
        long tiles = -Math.floorDiv(span[0] - span[1], step);
        return span[0] + tiles * step;
    }
}
