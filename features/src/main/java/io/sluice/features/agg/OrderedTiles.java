package io.sluice.features.agg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One entity's tiles of one view, built once from its events and then only read, by many windows:
 * the training set's reader, which evaluates a row per label time of each entity. Each whole fine,
 * mid and coarse tile's partial is merged once per partial key ({@link FeatureDef#partialKey()})
 * and kept, however many rows and features read it; heads are cut at each row's own time, so they
 * are not kept.
 *
 * <p>It reads exactly what {@link EntityTiles} would for the same events (the same tiles, and each
 * coarse or mid partial merged from its fine tiles' partials in ascending order, as {@link
 * CoarsePartials#of} does), but from sorted arrays found by binary search instead of a tree map,
 * and with its kept partials in arrays instead of maps of boxed starts: a training set evaluates
 * hundreds of millions of windows, and the maps' lookups and boxed keys were most of its time and
 * garbage. {@link EntityTiles} stays what the features job updates event by event.
 */
public final class OrderedTiles implements Windows.TileReader {

    private static final long[] NONE = new long[0];

    private final long coarse;
    private final long mid;
    private final long[] starts; // the fine tiles' starts, ascending
    private final Tile[] tiles;
    private final long[] coarseStarts; // the coarse tiles holding a fine one, ascending
    private final long[] midStarts; // the mid tiles holding a fine one, ascending

    private final List<String> keys = new ArrayList<>(4); // partial keys, by index
    private final List<Partial[]> fineKept = new ArrayList<>(4); // [key][fine tile]
    private final List<Partial[]> coarseKept = new ArrayList<>(4); // [key][coarse tile]
    private final List<Partial[]> midKept = new ArrayList<>(4); // [key][mid tile]

    private OrderedTiles(long tile, long coarse, long[] starts, Tile[] tiles) {
        this.coarse = coarse;
        this.mid = Windows.midSize(tile, coarse);
        this.starts = starts;
        this.tiles = tiles;
        this.coarseStarts = floors(starts, coarse);
        this.midStarts = floors(starts, mid);
    }

    /**
     * The tiles of {@code events}: in (time, id) order with distinct ids, as the warehouse's sorted
     * files give them, each tile is its run of events; in any other order they are built as {@link
     * EntityTiles#addAll} builds them, so the result is the same either way.
     */
    public static OrderedTiles of(long tile, long coarse, List<EventEntry> events) {
        EntityTiles checked = new EntityTiles(tile, coarse); // validates the sizes
        if (!ordered(events)) {
            checked.addAll(events);
            long[] starts = new long[checked.tiles().size()];
            Tile[] tiles = new Tile[starts.length];
            int i = 0;
            for (var e : checked.tiles().entrySet()) {
                starts[i] = e.getKey();
                tiles[i++] = e.getValue();
            }
            return new OrderedTiles(tile, coarse, starts, tiles);
        }
        List<Long> starts = new ArrayList<>();
        List<Tile> tiles = new ArrayList<>();
        int i = 0;
        while (i < events.size()) {
            long start = Windows.floor(events.get(i).ts(), tile);
            int end = i + 1;
            while (end < events.size() && Windows.floor(events.get(end).ts(), tile) == start) {
                end++;
            }
            starts.add(start);
            tiles.add(Tile.ofOrdered(start, new ArrayList<>(events.subList(i, end))));
            i = end;
        }
        return new OrderedTiles(tile, coarse, TileStarts.keys(starts), tiles.toArray(new Tile[0]));
    }

    /** Whether {@code events} are in strictly ascending (time, id) order. */
    private static boolean ordered(List<EventEntry> events) {
        for (int i = 1; i < events.size(); i++) {
            EventEntry a = events.get(i - 1);
            EventEntry b = events.get(i);
            if (a.ts() > b.ts() || a.ts() == b.ts() && Partial.compareIds(a.id(), b.id()) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** The distinct starts of the tiles of {@code size} that hold one of {@code starts}. */
    private static long[] floors(long[] starts, long size) {
        long[] floors = new long[starts.length];
        int n = 0;
        for (long s : starts) {
            long f = Windows.floor(s, size);
            if (n == 0 || floors[n - 1] != f) {
                floors[n++] = f;
            }
        }
        return Arrays.copyOf(floors, n);
    }

    /** The index of {@code feature}'s partial key among those read so far, adding it if new. */
    private int key(FeatureDef feature) {
        String k = feature.partialKey();
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).equals(k)) {
                return i;
            }
        }
        keys.add(k);
        fineKept.add(new Partial[starts.length]);
        coarseKept.add(new Partial[coarseStarts.length]);
        midKept.add(new Partial[midStarts.length]);
        return keys.size() - 1;
    }

    private Partial fineAt(int index, int key, FeatureDef feature) {
        Partial[] kept = fineKept.get(key);
        if (kept[index] == null) {
            kept[index] = tiles[index].partial(feature);
        }
        return kept[index];
    }

    /** The merge of the fine tiles in {@code [start, start + size)}, in ascending order. */
    private Partial merged(long start, long size, int key, FeatureDef feature) {
        Partial p = new Partial();
        int end = TileStarts.lowerBound(starts, 0, start + size);
        for (int i = TileStarts.lowerBound(starts, 0, start); i < end; i++) {
            p.merge(fineAt(i, key, feature));
        }
        return p;
    }

    private Partial kept(
            long[] holding, List<Partial[]> kept, long start, long size, FeatureDef f) {
        int key = key(f);
        int at = Arrays.binarySearch(holding, start);
        if (at < 0) {
            return merged(start, size, key, f); // holds no fine tile (or not a tile's start)
        }
        Partial[] partials = kept.get(key);
        if (partials[at] == null) {
            partials[at] = merged(start, size, key, f);
        }
        return partials[at];
    }

    // Windows only merge what a reader returns, so a kept partial can be returned again.
    @Override
    public Partial fine(long start, FeatureDef feature) {
        int at = Arrays.binarySearch(starts, start);
        return at < 0 ? new Partial() : fineAt(at, key(feature), feature);
    }

    @Override
    public Partial coarse(long start, FeatureDef feature) {
        return kept(coarseStarts, coarseKept, start, coarse, feature);
    }

    @Override
    public Partial mid(long start, FeatureDef feature) {
        return kept(midStarts, midKept, start, mid, feature);
    }

    @Override
    public Partial head(long start, long before, FeatureDef feature) {
        int at = Arrays.binarySearch(starts, start);
        return at < 0 ? new Partial() : tiles[at].partial(feature, before);
    }

    @Override
    public long[] fineStarts(long from, long to, long step) {
        return TileStarts.between(starts, from, to);
    }

    @Override
    public long[] coarseStarts(long from, long to, long step) {
        return holding(from, to, step);
    }

    @Override
    public long[] midStarts(long from, long to, long step) {
        return holding(from, to, step);
    }

    /**
     * The starts of the tiles of {@code step} in {@code [from, to)} that hold a fine one, as {@link
     * EntityTiles} names them: one binary search per such tile.
     */
    private long[] holding(long from, long to, long step) {
        long[] found = NONE;
        int n = 0;
        int i = TileStarts.lowerBound(starts, 0, from);
        while (i < starts.length && starts[i] < to) {
            long start = Windows.floor(starts[i], step);
            if (n == found.length) {
                found = Arrays.copyOf(found, Math.max(4, 2 * n));
            }
            found[n++] = start;
            i = TileStarts.lowerBound(starts, i, start + step);
        }
        return n == found.length ? found : Arrays.copyOf(found, n);
    }
}
