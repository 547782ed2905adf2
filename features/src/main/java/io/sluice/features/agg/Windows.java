package io.sluice.features.agg;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * The window definition, and which tiles cover a window ({@link Cover}); reading a cover's tiles is
 * {@link WindowReads}'s.
 *
 * <pre>
 * value(f, e, t) = AGG { x.field : x.key = e, floor_s(t) − W ≤ x.ts &lt; t }
 * </pre>
 *
 * The body {@code [floor_s(t) − W, floor_s(t))} is whole tiles; it is read from coarse tiles
 * (partials over {@code c}, a multiple of {@code s}) where they fit, from mid tiles (partials over
 * {@code m}, {@link #midSize}: a multiple of {@code s} dividing {@code c}) where they fit in what
 * is left at its edges, and from fine tiles in the rest, so a 24-hour window of 1-minute tiles
 * (6-minute mid, 1-hour coarse tiles) reads at most 24 coarse, 2 × 9 mid and 2 × 5 fine tiles
 * instead of 1,440. The head {@code [floor_s(t), t)} is read from the events of {@code t}'s tile.
 *
 * <p>Event times are whole milliseconds, but {@code t} need not be: a spine written by pandas,
 * Spark or Arrow, or an {@code at} sent to the server, may carry micro- or nanoseconds. Such a
 * {@code t} is given by its two ends, {@code tail = floor_ms(t)} and {@code headEnd = ceil_ms(t)}
 * (equal when {@code t} is a whole millisecond): {@code floor_s(t) = floor_s(tail)}, and {@code
 * x.ts < t} exactly when {@code x.ts < headEnd}. Rounding {@code t} either way before taking both
 * would be wrong at one end: up moves the tail a tile later in the last millisecond before a tile
 * edge, down drops an event in {@code t}'s own millisecond.
 */
public final class Windows {

    private Windows() {}

    /** Where a window's tiles come from. */
    public interface TileReader {
        /** The partial of a whole fine tile, or an empty one. */
        Partial fine(long start, FeatureDef feature);

        /** The partial of a whole coarse tile, or an empty one. */
        Partial coarse(long start, FeatureDef feature);

        /** The partial of a whole mid tile ({@link #midSize}), or an empty one. */
        Partial mid(long start, FeatureDef feature);

        /** The partial of the events of fine tile {@code start} before {@code before}. */
        Partial head(long start, long before, FeatureDef feature);

        /**
         * The starts of the fine tiles in {@code [from, to)} (multiples of {@code step}) that may
         * hold events, ascending. Every start by default; a reader that knows which tiles exist
         * names only those, so a sparse entity's window costs what it holds, not its length. An
         * empty partial merges as nothing, so skipping one never changes a value.
         */
        default long[] fineStarts(long from, long to, long step) {
            return TileStarts.everyOf(from, to, step);
        }

        /** As {@link #fineStarts}, for the coarse tiles in {@code [from, to)}. */
        default long[] coarseStarts(long from, long to, long step) {
            return TileStarts.everyOf(from, to, step);
        }

        /** As {@link #fineStarts}, for the mid tiles in {@code [from, to)}. */
        default long[] midStarts(long from, long to, long step) {
            return TileStarts.everyOf(from, to, step);
        }
    }

    /**
     * The mid tile size of fine tiles of {@code tile} and coarse tiles of {@code coarse}: the
     * multiple of {@code tile} that divides {@code coarse} into the number of parts nearest the
     * square root of {@code coarse / tile} (so that a window's edge reads as few mid and fine tiles
     * as can be: 6 minutes for 1-minute and 1-hour tiles), other than 1 and {@code coarse / tile}
     * themselves; {@code coarse} when there is none (then no window reads a mid tile).
     */
    public static long midSize(long tile, long coarse) {
        long n = coarse / tile;
        double root = Math.sqrt(n);
        long best = n;
        for (long d = 2; d * d <= n; d++) {
            if (n % d == 0) {
                for (long parts : new long[] {d, n / d}) {
                    if (best == n || Math.abs(parts - root) < Math.abs(best - root)) {
                        best = parts;
                    }
                }
            }
        }
        return tile * best;
    }

    /**
     * The tiles a window is read from: fine tiles in {@code [from, midFrom)}, mid tiles in {@code
     * [midFrom, coarseFrom)}, coarse tiles where they fit entirely, {@code [coarseFrom, coarseTo)},
     * mid tiles in {@code [coarseTo, midTo)}, fine tiles in {@code [midTo, to)}, and the head
     * {@code [to, headEnd)}: the events of fine tile {@code to} before {@code headEnd}. A cover of
     * a body alone has an empty head ({@code headEnd == to}).
     *
     * @param tileSize the fine tile size s
     * @param midSize the mid tile size, a multiple of s dividing the coarse size ({@link #midSize})
     * @param coarseSize the coarse tile size, a multiple of s
     */
    public record Cover(
            long from,
            long midFrom,
            long coarseFrom,
            long coarseTo,
            long midTo,
            long to,
            long headEnd,
            long tileSize,
            long midSize,
            long coarseSize) {

        /** The starts of its fine tiles, ascending. */
        public List<Long> fine() {
            List<Long> fine = TileStarts.every(from, midFrom, tileSize);
            fine.addAll(TileStarts.every(midTo, to, tileSize));
            return fine;
        }

        /** The starts of its mid tiles, ascending. */
        public List<Long> mid() {
            List<Long> mid = TileStarts.every(midFrom, coarseFrom, midSize);
            mid.addAll(TileStarts.every(coarseTo, midTo, midSize));
            return mid;
        }

        /** The starts of its coarse tiles, ascending. */
        public List<Long> coarse() {
            return TileStarts.every(coarseFrom, coarseTo, coarseSize);
        }

        /** The start of the fine tile its head is cut from. */
        public long headStart() {
            return to;
        }

        /** Whether the cover has a head to read. */
        public boolean hasHead() {
            return headEnd > to;
        }
    }

    /** {@code t} truncated to a multiple of {@code size} (toward negative infinity). */
    public static long floor(long t, long size) {
        return Math.floorDiv(t, size) * size;
    }

    /**
     * The last whole millisecond at or before {@code t}: where {@code t}'s windows' tails are cut.
     */
    public static long floorMillis(Instant t) {
        return t.toEpochMilli(); // truncates toward negative infinity
    }

    /**
     * The first whole millisecond at or after {@code t}: an event at {@code ts} (whole millis) is
     * before {@code t} exactly when {@code ts < ceilMillis(t)}.
     */
    public static long ceilMillis(Instant t) {
        return t.getNano() % 1_000_000 == 0 ? t.toEpochMilli() : Math.addExact(t.toEpochMilli(), 1);
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
     * coarse} (a multiple of {@code tile}) where they fit entirely, mid tiles ({@link #midSize})
     * where they fit in the rest, and fine tiles elsewhere; the head is empty.
     */
    public static Cover cover(long from, long to, long tile, long coarse) {
        return cover(from, to, tile, coarse, to);
    }

    /**
     * The cover of {@code feature}'s window at {@code t}: its body {@code [floor_s(t) − W,
     * floor_s(t))} and its head {@code [floor_s(t), t)}. What a reader fetches and what {@link
     * WindowReads#value} reads are this one object.
     */
    public static Cover cover(FeatureDef feature, long t, long tile, long coarse) {
        return cover(feature, t, t, tile, coarse);
    }

    /**
     * The cover of {@code feature}'s window at a {@code t} between two whole milliseconds: its body
     * {@code [floor_s(tail) − W, floor_s(tail))} and its head {@code [floor_s(tail), headEnd)},
     * where {@code tail = floor_ms(t)} and {@code headEnd = ceil_ms(t)} ({@link #floorMillis},
     * {@link #ceilMillis}). In the last millisecond before a tile edge the head is that whole tile.
     *
     * @throws IllegalArgumentException unless {@code tail ≤ headEnd ≤ tail + 1}
     */
    public static Cover cover(FeatureDef feature, long tail, long headEnd, long tile, long coarse) {
        checkEnds(tail, headEnd);
        return cover(start(feature, tail, tile), floor(tail, tile), tile, coarse, headEnd);
    }

    private static void checkEnds(long tail, long headEnd) {
        if (headEnd != tail && headEnd - 1 != tail) {
            throw new IllegalArgumentException(
                    "a time's ends are the whole milliseconds around it, got tail "
                            + tail
                            + " and head end "
                            + headEnd);
        }
    }

    private static Cover cover(long from, long to, long tile, long coarse, long headEnd) {
        long mid = midSize(tile, coarse);
        long midFrom = ceil(from, mid);
        long midTo = floor(to, mid);
        if (midFrom >= midTo) {
            midFrom = to; // too short for a whole mid tile: all of it is fine tiles
            midTo = to;
        }
        long coarseFrom = ceil(from, coarse);
        long coarseTo = floor(to, coarse);
        if (coarseFrom >= coarseTo) {
            coarseFrom = midTo; // too short for a whole coarse tile: mid tiles, then fine
            coarseTo = midTo;
        }
        return new Cover(
                from, midFrom, coarseFrom, coarseTo, midTo, to, headEnd, tile, mid, coarse);
    }

    /** {@code t} rounded up to a multiple of {@code size}. */
    private static long ceil(long t, long size) {
        return -Math.floorDiv(-t, size) * size;
    }
}
