package io.sluice.features.online;

import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** One view's covers at one time: what to read of each of its entities. */
final class AskedTiles {
    final ViewDef view;
    final TreeSet<Long> fine = new TreeSet<>();
    final TreeSet<Long> coarse = new TreeSet<>();
    final TreeSet<Long> mid = new TreeSet<>();

    /** The covers added: the features of one window share one. */
    private final Set<Windows.Cover> covers = new HashSet<>();

    AskedTiles(ViewDef view) {
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
