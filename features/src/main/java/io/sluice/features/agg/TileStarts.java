package io.sluice.features.agg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Tile starts as ascending arrays of epoch millis: every multiple of a tile size in a range, the
 * first at least a value, a range's slice. A window's reader names the tiles it reads this way
 * ({@link Windows.TileReader#fineStarts}).
 */
public final class TileStarts {

    private TileStarts() {}

    /** Every multiple of {@code step} in {@code [from, to)}, {@code from} being one. */
    static long[] everyOf(long from, long to, long step) {
        long[] starts = new long[(int) Math.max(0, -Math.floorDiv(from - to, step))];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = from + i * step;
        }
        return starts;
    }

    /** The first index of {@code sorted} from {@code from} on whose value is at least {@code v}. */
    public static int lowerBound(long[] sorted, int from, long v) {
        int lo = from;
        int hi = sorted.length;
        while (lo < hi) {
            int m = (lo + hi) >>> 1;
            if (sorted[m] < v) {
                lo = m + 1;
            } else {
                hi = m;
            }
        }
        return lo;
    }

    /** The values of ascending {@code sorted} in {@code [from, to)}. */
    public static long[] between(long[] sorted, long from, long to) {
        int lo = lowerBound(sorted, 0, from);
        int hi = lowerBound(sorted, lo, to);
        return lo >= hi ? NO_STARTS : Arrays.copyOfRange(sorted, lo, hi);
    }

    private static final long[] NO_STARTS = new long[0];

    /** {@code starts} as an array, in their order. */
    public static long[] keys(Collection<Long> starts) {
        long[] keys = new long[starts.size()];
        int i = 0;
        for (long s : starts) {
            keys[i++] = s;
        }
        return keys;
    }

    /** {@link #everyOf} as a list. */
    static List<Long> every(long from, long to, long step) {
        List<Long> starts = new ArrayList<>();
        for (long s = from; s < to; s += step) {
            starts.add(s);
        }
        return starts;
    }
}
