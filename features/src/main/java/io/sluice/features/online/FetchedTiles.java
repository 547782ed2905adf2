package io.sluice.features.online;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.TileStarts;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;

/**
 * The tiles one read found of one (view, entity), decoded once each when first used, read as a
 * window's tiles: only the tiles that exist are visited.
 *
 * <p>Each level's tiles are held as sorted arrays of starts and payloads, taken once from the
 * {@link OnlineStore.Found}'s maps: a request reads every tile up to a dozen times (each window,
 * partial key and presence check), and looking them up by binary search in a {@code long[]} costs a
 * fraction of the sorted maps' sub-map views and boxed keys (most of a 100-entity read's time
 * before, in a profile of {@code FeatureReader.read}).
 */
final class FetchedTiles implements Windows.TileReader {
    private final LevelTiles fine;
    private final LevelTiles coarse;
    private final LevelTiles mid;

    /** Fine tiles' events, decoded when first used. */
    private final Tile[] fineTiles;

    /**
     * Whole fine tiles' partials by partial key, then tile index: features sharing a key share it.
     */
    private final Map<String, Partial[]> finePartials = new HashMap<>();

    /** Heads' partials by partial key; a read cuts every head at the same place. */
    private final Map<String, Partial> heads = new HashMap<>();

    private long headStart = Long.MIN_VALUE;
    private long headEnd = Long.MIN_VALUE;

    FetchedTiles(OnlineStore.Found found) {
        fine = new LevelTiles(found.fine());
        coarse = new LevelTiles(found.coarse());
        mid = new LevelTiles(found.mid());
        fineTiles = new Tile[fine.starts.length];
    }

    /**
     * A mid or coarse tile's partials: two or three keys, so arrays searched in order instead of a
     * map (whose construction was a sixth of a 100-entity read's evaluation in a profile).
     */
    private static final class TilePartials implements TileCodec.Partials {
        private String[] keys;
        private Partial[] partials;
        private int size;

        @Override
        public void count(int count) {
            keys = new String[count];
            partials = new Partial[count];
        }

        @Override
        public void add(String key, Partial partial) {
            keys[size] = key;
            partials[size++] = partial;
        }

        /** The partial of {@code key}, or null. */
        Partial get(String key) {
            for (int i = 0; i < size; i++) {
                if (keys[i].equals(key)) {
                    return partials[i];
                }
            }
            return null;
        }
    }

    /** One level's tiles: starts ascending, their payloads, and partials once decoded. */
    private static final class LevelTiles {
        final long[] starts;
        final byte[][] payloads;
        final TilePartials[] partials;

        LevelTiles(NavigableMap<Long, byte[]> tiles) {
            starts = new long[tiles.size()];
            payloads = new byte[starts.length][];
            int i = 0;
            for (Map.Entry<Long, byte[]> e : tiles.entrySet()) { // one walk of the tree
                starts[i] = e.getKey();
                payloads[i++] = e.getValue();
            }
            partials = new TilePartials[starts.length];
        }

        /** The index of the first start at or after {@code from}. */
        int from(long from) {
            return TileStarts.lowerBound(starts, 0, from);
        }

        /** The index of the tile starting at {@code start}, or a negative number. */
        int indexOf(long start) {
            return Arrays.binarySearch(starts, start);
        }

        /** A mid or coarse tile's partial of {@code key}, or an empty one. */
        Partial partial(long start, String key) {
            int i = indexOf(start);
            if (i < 0) {
                return new Partial();
            }
            Partial p = partials(i).get(key);
            return p == null ? new Partial() : p;
        }

        TilePartials partials(int i) {
            TilePartials p = partials[i];
            if (p == null) {
                p = new TilePartials();
                TileCodec.decodeCoarse(payloads[i], p);
                partials[i] = p;
            }
            return p;
        }

        /** Whether a mid or coarse tile in {@code [from, to)} counts an event of {@code key}. */
        boolean anyIn(long from, long to, String key) {
            for (int i = from(from); i < starts.length && starts[i] < to; i++) {
                Partial p = partials(i).get(key);
                if (p != null && !p.isEmpty()) {
                    return true;
                }
            }
            return false;
        }
    }

    private Tile fineTile(int i) {
        Tile t = fineTiles[i];
        if (t == null) {
            t = TileCodec.decodeFine(fine.starts[i], fine.payloads[i]);
            fineTiles[i] = t;
        }
        return t;
    }

    private Tile fineTile(long start) {
        int i = fine.indexOf(start);
        return i < 0 ? new Tile(start) : fineTile(i);
    }

    /**
     * Whether a tile found shows the entity known at the time t with ends {@code tail} and {@code
     * headEnd}: an event in the view's retention before t. False proves nothing: the tiles found
     * are only the windows'.
     */
    boolean showsPresence(ViewDef view, long tail, long headEnd) {
        long head = Windows.floor(tail, view.tileMillis());
        long from = head - view.ttlMillis();
        if (coarse.anyIn(from, head, ViewDef.PRESENCE) || mid.anyIn(from, head, ViewDef.PRESENCE)) {
            return true;
        }
        for (int i = fine.from(from); i < fine.starts.length && fine.starts[i] <= head; i++) {
            if (fine.starts[i] < head
                    ? fineTile(i).size() > 0
                    : !fineTile(i).partial(view.presence(), headEnd).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    // Windows only merge what a reader returns, so a partial can be shared by features.
    @Override
    public Partial fine(long start, FeatureDef feature) {
        int i = fine.indexOf(start);
        if (i < 0) {
            return new Tile(start).partial(feature);
        }
        Partial[] byTile =
                finePartials.computeIfAbsent(
                        feature.partialKey(), k -> new Partial[fine.starts.length]);
        Partial p = byTile[i];
        if (p == null) {
            p = fineTile(i).partial(feature);
            byTile[i] = p;
        }
        return p;
    }

    @Override
    public Partial coarse(long start, FeatureDef feature) {
        return coarse.partial(start, feature.partialKey());
    }

    @Override
    public Partial mid(long start, FeatureDef feature) {
        return mid.partial(start, feature.partialKey());
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
        return TileStarts.between(fine.starts, from, to);
    }

    @Override
    public long[] coarseStarts(long from, long to, long step) {
        return TileStarts.between(coarse.starts, from, to);
    }

    @Override
    public long[] midStarts(long from, long to, long step) {
        return TileStarts.between(mid.starts, from, to);
    }
}
