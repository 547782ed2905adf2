package io.sluice.features.online;

import io.sluice.features.agg.CoarsePartials;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The store writes that publish changed fine tiles of an entity, with their mid and coarse tiles.
 */
public final class TileWrites {

    private TileWrites() {}

    /**
     * When a tile may go: reads at any {@code t} in {@code [now − ttl, now]} with windows up to the
     * ttl still find it.
     */
    public static long expiry(ViewDef view, long start, long size) {
        return start + size + 2 * view.ttlMillis();
    }

    /** The write of fine tile {@code tile} of {@code entity} at {@code version}. */
    public static OnlineStore.TileWrite fine(ViewDef view, String entity, long version, Tile tile) {
        return new OnlineStore.TileWrite(
                new OnlineStore.TileKey(view.name(), entity, OnlineStore.Level.FINE, tile.start()),
                version,
                TileCodec.encodeFine(tile),
                expiry(view, tile.start(), view.tileMillis()));
    }

    /** The write of the coarse tile at {@code start}, already encoded. */
    public static OnlineStore.TileWrite coarse(
            ViewDef view, String entity, long start, long version, byte[] payload) {
        return partials(view, entity, OnlineStore.Level.COARSE, start, version, payload);
    }

    /** The write of the mid tile at {@code start}, already encoded. */
    public static OnlineStore.TileWrite mid(
            ViewDef view, String entity, long start, long version, byte[] payload) {
        return partials(view, entity, OnlineStore.Level.MID, start, version, payload);
    }

    /** The size of the tiles of {@code level}. */
    public static long size(ViewDef view, OnlineStore.Level level) {
        return switch (level) {
            case FINE -> view.tileMillis();
            case MID -> view.midMillis();
            case COARSE -> view.coarseMillis();
        };
    }

    private static OnlineStore.TileWrite partials(
            ViewDef view,
            String entity,
            OnlineStore.Level level,
            long start,
            long version,
            byte[] payload) {
        return new OnlineStore.TileWrite(
                new OnlineStore.TileKey(view.name(), entity, level, start),
                version,
                payload,
                expiry(view, start, size(view, level)));
    }

    /**
     * One write per changed fine tile, and one per mid and coarse tile containing one, each
     * versioned by its event count.
     */
    public static List<OnlineStore.TileWrite> of(
            ViewDef view, String entity, EntityTiles tiles, Collection<Long> changedFineStarts) {
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        TreeSet<Long> coarseStarts = new TreeSet<>();
        TreeSet<Long> midStarts = new TreeSet<>();
        for (long start : new TreeSet<>(changedFineStarts)) {
            Tile tile = tiles.tile(start);
            if (tile != null) {
                writes.add(fine(view, entity, tile.size(), tile));
                coarseStarts.add(Windows.floor(start, view.coarseMillis()));
                midStarts.add(Windows.floor(start, view.midMillis()));
            }
        }
        partials(view, entity, tiles, OnlineStore.Level.COARSE, coarseStarts, writes);
        partials(view, entity, tiles, OnlineStore.Level.MID, midStarts, writes);
        return writes;
    }

    private static void partials(
            ViewDef view,
            String entity,
            EntityTiles tiles,
            OnlineStore.Level level,
            Collection<Long> starts,
            List<OnlineStore.TileWrite> into) {
        long size = size(view, level);
        for (long start : starts) {
            Collection<Tile> fine = tiles.tiles().subMap(start, true, start + size, false).values();
            long version = 0;
            for (Tile t : fine) {
                version += t.size();
            }
            into.add(
                    partials(
                            view,
                            entity,
                            level,
                            start,
                            version,
                            TileCodec.encodeCoarse(CoarsePartials.of(view, fine))));
        }
    }
}
