package io.sluice.features.online;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.util.HashMap;
import java.util.Map;

/**
 * The tiles one read found of one (view, entity), decoded once each when first used, read as a
 * window's tiles: only the tiles that exist are visited.
 */
final class FetchedTiles implements Windows.TileReader {
    private final OnlineStore.Found found;
    private final Map<Long, Tile> fine = new HashMap<>();
    private final Map<Long, Map<String, Partial>> coarse = new HashMap<>();
    private final Map<Long, Map<String, Partial>> mid = new HashMap<>();

    /** Whole fine tiles' partials by partial key, then start: features sharing a key share it. */
    private final Map<String, Map<Long, Partial>> finePartials = new HashMap<>();

    /** Heads' partials by partial key; a read cuts every head at the same place. */
    private final Map<String, Partial> heads = new HashMap<>();

    private long headStart = Long.MIN_VALUE;
    private long headEnd = Long.MIN_VALUE;

    FetchedTiles(OnlineStore.Found found) {
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
     * Whether a tile found shows the entity known at the time t with ends {@code tail} and {@code
     * headEnd}: an event in the view's retention before t. False proves nothing: the tiles found
     * are only the windows'.
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
