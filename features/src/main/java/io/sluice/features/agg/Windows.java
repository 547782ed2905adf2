package io.sluice.features.agg;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

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
    }

    /**
     * The tiles a window is read from: coarse tiles where they fit entirely, fine tiles at the
     * body's edges (both ascending), and the head {@code [headStart, headEnd)}, the events of fine
     * tile {@code headStart} before {@code headEnd}. A cover of a body alone has an empty head
     * ({@code headStart == headEnd}).
     */
    public record Cover(List<Long> fine, List<Long> coarse, long headStart, long headEnd) {

        public Cover {
            fine = List.copyOf(fine);
            coarse = List.copyOf(coarse);
        }

        /** Whether the cover has a head to read. */
        public boolean hasHead() {
            return headEnd > headStart;
        }
    }

    /** {@code t} truncated to a multiple of {@code size} (toward negative infinity). */
    public static long floor(long t, long size) {
        return Math.floorDiv(t, size) * size;
    }

    /** The first millisecond of {@code feature}'s window at {@code t}. */
    public static long start(FeatureDef feature, long t, long tile) {
        return floor(t, tile) - feature.windowMillis();
    }

    /** The first millisecond any of {@code features} reads at {@code t}: its longest window's. */
    public static long start(Collection<FeatureDef> features, long t, long tile) {
        long longest = 0;
        for (FeatureDef f : features) {
            longest = Math.max(longest, f.windowMillis());
        }
        return floor(t, tile) - longest;
    }

    /**
     * Covers {@code [from, to)}, both multiples of {@code tile}, with coarse tiles of {@code
     * coarse} (a multiple of {@code tile}) where they fit entirely and fine tiles elsewhere; the
     * head is empty.
     */
    public static Cover cover(long from, long to, long tile, long coarse) {
        return cover(from, to, tile, coarse, to);
    }

    /**
     * The cover of {@code feature}'s window at {@code t}: its body {@code [floor_s(t) − W,
     * floor_s(t))} and its head {@code [floor_s(t), t)}. What a reader fetches and what {@link
     * #value} reads are this one object.
     */
    public static Cover cover(FeatureDef feature, long t, long tile, long coarse) {
        return cover(start(feature, t, tile), floor(t, tile), tile, coarse, t);
    }

    private static Cover cover(long from, long to, long tile, long coarse, long headEnd) {
        List<Long> fine = new ArrayList<>();
        List<Long> coarseTiles = new ArrayList<>();
        long firstCoarse = Math.floorDiv(from + coarse - 1, coarse) * coarse;
        long lastCoarseEnd = floor(to, coarse);
        if (firstCoarse >= lastCoarseEnd) {
            firstCoarse = to; // too short for a whole coarse tile: all of it is fine tiles
            lastCoarseEnd = to;
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
        return new Cover(fine, coarseTiles, to, headEnd);
    }

    /**
     * {@code value(feature, e, t)} for the entity whose tiles {@code reader} reads, at the {@code
     * t} that {@code cover} was planned for ({@link #cover(FeatureDef, long, long, long)}): its
     * coarse tiles, then its fine tiles, then its head, merged in that order.
     */
    public static FeatureValue value(FeatureDef feature, Cover cover, TileReader reader) {
        Partial total = new Partial();
        for (long s : cover.coarse()) {
            total.merge(reader.coarse(s, feature));
        }
        for (long s : cover.fine()) {
            total.merge(reader.fine(s, feature));
        }
        if (cover.hasHead()) {
            total.merge(reader.head(cover.headStart(), cover.headEnd(), feature));
        }
        return total.value(feature);
    }

    /** {@code value(feature, e, t)}: {@link #value(FeatureDef, Cover, TileReader)} of its cover. */
    public static FeatureValue value(
            FeatureDef feature, long t, long tile, long coarse, TileReader reader) {
        return value(feature, cover(feature, t, tile, coarse), reader);
    }
}
