package io.sluice.features.agg;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link Windows.TileReader} that keeps each whole tile's partial once read, for a reader that
 * evaluates many windows of one entity (the training-set builder, one row per label time): each
 * fine, mid and coarse partial is then computed once per partial key ({@link
 * FeatureDef#partialKey()}), however many rows and features read it. Heads are cut at each row's
 * own time, so they are not kept.
 */
public final class CachingTileReader implements Windows.TileReader {

    private final Windows.TileReader tiles;
    private final Map<String, Map<Long, Partial>> fine = new HashMap<>();
    private final Map<String, Map<Long, Partial>> coarse = new HashMap<>();
    private final Map<String, Map<Long, Partial>> mid = new HashMap<>();

    public CachingTileReader(Windows.TileReader tiles) {
        this.tiles = tiles;
    }

    // Windows only merge what a reader returns, so a kept partial can be returned again.
    @Override
    public Partial fine(long start, FeatureDef feature) {
        return fine.computeIfAbsent(feature.partialKey(), f -> new HashMap<>())
                .computeIfAbsent(start, s -> tiles.fine(s, feature));
    }

    @Override
    public Partial coarse(long start, FeatureDef feature) {
        return coarse.computeIfAbsent(feature.partialKey(), f -> new HashMap<>())
                .computeIfAbsent(start, s -> tiles.coarse(s, feature));
    }

    @Override
    public Partial mid(long start, FeatureDef feature) {
        return mid.computeIfAbsent(feature.partialKey(), f -> new HashMap<>())
                .computeIfAbsent(start, s -> tiles.mid(s, feature));
    }

    @Override
    public Collection<Long> midStarts(long from, long to, long step) {
        return tiles.midStarts(from, to, step);
    }

    @Override
    public Collection<Long> fineStarts(long from, long to, long step) {
        return tiles.fineStarts(from, to, step);
    }

    @Override
    public Collection<Long> coarseStarts(long from, long to, long step) {
        return tiles.coarseStarts(from, to, step);
    }

    @Override
    public Partial head(long start, long before, FeatureDef feature) {
        return tiles.head(start, before, feature);
    }
}
