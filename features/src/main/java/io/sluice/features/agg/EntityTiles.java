package io.sluice.features.agg;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * All fine tiles of one entity of one view, in memory, read as a window's {@link
 * Windows.TileReader}: coarse and mid partials are merged from the fine tiles they span. The
 * features job keeps an entity's state in this form, and the property tests evaluate windows
 * through it.
 */
public final class EntityTiles implements Windows.TileReader {

    private final long tile;
    private final long coarse;
    private final long mid;
    private final NavigableMap<Long, Tile> tiles = new TreeMap<>();

    public EntityTiles(long tile, long coarse) {
        if (tile <= 0 || coarse % tile != 0) {
            throw new IllegalArgumentException(
                    "tile must be positive and coarse a multiple of it: " + tile + ", " + coarse);
        }
        this.tile = tile;
        this.coarse = coarse;
        this.mid = Windows.midSize(tile, coarse);
    }

    /** Adds an event to its tile; false if its id is already there. */
    public boolean add(EventEntry event) {
        return tiles.computeIfAbsent(Windows.floor(event.ts(), tile), Tile::new).add(event);
    }

    /**
     * Adds events that are in (time, id) order with distinct ids, as the warehouse's sorted files
     * give them: a tile this does not hold yet is built from its run of events without sorting or
     * an id set. Anything else is added one event at a time, so the result is the same either way.
     */
    public void addAll(List<EventEntry> ordered) {
        int i = 0;
        while (i < ordered.size()) {
            long start = Windows.floor(ordered.get(i).ts(), tile);
            int end = i + 1;
            boolean inOrder = true;
            while (end < ordered.size() && Windows.floor(ordered.get(end).ts(), tile) == start) {
                EventEntry a = ordered.get(end - 1);
                EventEntry b = ordered.get(end);
                inOrder &=
                        a.ts() < b.ts()
                                || a.ts() == b.ts() && Partial.compareIds(a.id(), b.id()) < 0;
                end++;
            }
            if (inOrder && !tiles.containsKey(start)) {
                tiles.put(start, Tile.ofOrdered(start, new ArrayList<>(ordered.subList(i, end))));
            } else {
                for (int j = i; j < end; j++) {
                    add(ordered.get(j));
                }
            }
            i = end;
        }
    }

    /** The tile starting at {@code start}, or null. */
    public Tile tile(long start) {
        return tiles.get(start);
    }

    public NavigableMap<Long, Tile> tiles() {
        return tiles;
    }

    /** {@code value(feature, this entity, t)}. */
    public FeatureValue value(FeatureDef feature, long t) {
        return WindowReads.value(feature, t, tile, coarse, this);
    }

    @Override
    public Partial fine(long start, FeatureDef feature) {
        Tile t = tiles.get(start);
        return t == null ? new Partial() : t.partial(feature);
    }

    @Override
    public Partial coarse(long start, FeatureDef feature) {
        return CoarsePartials.of(
                feature, tiles.subMap(start, true, start + coarse, false).values());
    }

    @Override
    public Partial mid(long start, FeatureDef feature) {
        return CoarsePartials.of(feature, tiles.subMap(start, true, start + mid, false).values());
    }

    @Override
    public long[] fineStarts(long from, long to, long step) {
        return TileStarts.keys(tiles.subMap(from, true, to, false).keySet());
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
     * The starts of the tiles of {@code step} in {@code [from, to)} that hold a fine one: one
     * lookup per such tile, not one step per fine tile (a busy entity has hundreds of fine tiles in
     * a day).
     */
    private long[] holding(long from, long to, long step) {
        List<Long> starts = new ArrayList<>();
        Long fine = tiles.ceilingKey(from);
        while (fine != null && fine < to) {
            long start = Windows.floor(fine, step);
            starts.add(start);
            fine = tiles.ceilingKey(start + step);
        }
        return TileStarts.keys(starts);
    }

    @Override
    public Partial head(long start, long before, FeatureDef feature) {
        Tile t = tiles.get(start);
        return t == null ? new Partial() : t.partial(feature, before);
    }
}
