package io.sluice.features.online;

import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/** The store writes that publish changed fine tiles of an entity, with their coarse tiles. */
public final class TileWrites {

    private TileWrites() {}

    /**
     * When a tile may go: reads at any {@code t} in {@code [now − ttl, now]} with windows up to the
     * ttl still find it.
     */
    public static long expiry(ViewDef view, long start, long size) {
        return start + size + 2 * view.ttlMillis();
    }

    /**
     * One write per changed fine tile, and one per coarse tile containing one, each versioned by
     * its event count.
     */
    public static List<OnlineStore.TileWrite> of(
            ViewDef view, String entity, EntityTiles tiles, Collection<Long> changedFineStarts) {
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        TreeSet<Long> coarseStarts = new TreeSet<>();
        for (long start : new TreeSet<>(changedFineStarts)) {
            Tile tile = tiles.tile(start);
            if (tile == null) {
                continue;
            }
            writes.add(
                    new OnlineStore.TileWrite(
                            new OnlineStore.TileKey(
                                    view.name(), entity, OnlineStore.Level.FINE, start),
                            tile.size(),
                            TileCodec.encodeFine(tile),
                            expiry(view, start, view.tileMillis())));
            coarseStarts.add(Windows.floor(start, view.coarseMillis()));
        }
        for (long start : coarseStarts) {
            Collection<Tile> fine =
                    tiles.tiles().subMap(start, true, start + view.coarseMillis(), false).values();
            long version = 0;
            for (Tile t : fine) {
                version += t.size();
            }
            writes.add(
                    new OnlineStore.TileWrite(
                            new OnlineStore.TileKey(
                                    view.name(), entity, OnlineStore.Level.COARSE, start),
                            version,
                            TileCodec.encodeCoarse(view, fine),
                            expiry(view, start, view.coarseMillis())));
        }
        return writes;
    }
}
