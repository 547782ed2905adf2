package io.sluice.features.agg;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The window definition, and how a window is read from tiles.
 *
 * <pre>
 * value(f, e, t) = AGG { x.field : x.key = e, floor_s(t) − W ≤ x.ts &lt; t }
 * </pre>
 *
 * The body {@code [floor_s(t) − W, floor_s(t))} is whole tiles; it is read from coarse tiles
 * (partials over {@code c}, a multiple of {@code s}) where they fit and from fine tiles at its
 * edges, so a 24-hour window of 1-minute tiles reads at most 24 coarse and 2 × 59 fine tiles
 * instead of 1,440. The head {@code [floor_s(t), t)} is read from the events of {@code t}'s tile.
 */
public final class Windows {

    private Windows() {}

    /** Where a window's tiles come from. */
    public interface TileReader {
        /** The partial of a whole fine tile, or an empty one. */
        Partial fine(long start, FeatureDef feature);

        /** The partial of a whole coarse tile, or an empty one. */
        Partial coarse(long start, FeatureDef feature);

        /** The partial of the events of fine tile {@code start} before {@code before}. */
        Partial head(long start, long before, FeatureDef feature);

        /**
         * Passes, ascending, the starts of the tiles of {@code size} in {@code [from, to)} that may
         * hold events. By default every start; a reader that knows which tiles are empty skips
         * them, which changes nothing, since an empty partial merges as nothing.
         */
        default void starts(long from, long to, long size, LongConsumer each) {
            for (long s = from; s < to; s += size) {
                each.accept(s);
            }
        }
    }

    /** The tiles that cover a window's body. */
    public record Cover(List<Long> fine, List<Long> coarse) {}

    /** {@code t} truncated to a multiple of {@code size} (toward negative infinity). */
    public static long floor(long t, long size) {
        return Math.floorDiv(t, size) * size;
    }

    /** The first millisecond of {@code feature}'s window at {@code t}. */
    public static long start(FeatureDef feature, long t, long tile) {
        return floor(t, tile) - feature.windowMillis();
    }

    /**
     * Covers {@code [from, to)}, both multiples of {@code tile}, with coarse tiles of {@code
     * coarse} (a multiple of {@code tile}) where they fit entirely and fine tiles elsewhere.
     */
    public static Cover cover(long from, long to, long tile, long coarse) {
        List<Long> fine = new ArrayList<>();
        List<Long> coarseTiles = new ArrayList<>();
        long firstCoarse = Math.floorDiv(from + coarse - 1, coarse) * coarse;
        long lastCoarseEnd = floor(to, coarse);
        if (firstCoarse >= lastCoarseEnd) {
            for (long s = from; s < to; s += tile) {
                fine.add(s);
            }
            return new Cover(fine, coarseTiles);
        }
        for (long s = from; s < firstCoarse; s += tile) {
            fine.add(s);
        }
        for (long s = firstCoarse; s < lastCoarseEnd; s += coarse) {
            coarseTiles.add(s);
        }
        for (long s = lastCoarseEnd; s < to; s += tile) {
            fine.add(s);
        }
        return new Cover(fine, coarseTiles);
    }

    /**
     * {@code value(feature, e, t)} for the entity whose tiles {@code reader} reads: the coarse
     * tiles of the body, then its fine tiles (as {@link #cover} splits it), then the head.
     */
    public static FeatureValue value(
            FeatureDef feature, long t, long tile, long coarse, TileReader reader) {
        long head = floor(t, tile);
        long from = start(feature, t, tile);
        long firstCoarse = Math.floorDiv(from + coarse - 1, coarse) * coarse;
        long lastCoarseEnd = floor(head, coarse);
        Partial total = new Partial();
        if (firstCoarse >= lastCoarseEnd) {
            reader.starts(from, head, tile, s -> total.merge(reader.fine(s, feature)));
        } else {
            reader.starts(
                    firstCoarse,
                    lastCoarseEnd,
                    coarse,
                    s -> total.merge(reader.coarse(s, feature)));
            reader.starts(from, firstCoarse, tile, s -> total.merge(reader.fine(s, feature)));
            reader.starts(lastCoarseEnd, head, tile, s -> total.merge(reader.fine(s, feature)));
        }
        total.merge(reader.head(head, t, feature));
        return total.value(feature);
    }
}
