package io.sluice.app.bench;

import java.util.function.IntPredicate;

/** The capacity search of {@code bench serve}: the highest rate a load passes at. */
final class RateSearch {

    private RateSearch() {}

    /**
     * The highest rate that {@code passes}: from {@code first}, doubling while it passes (up to
     * {@code max}) or halving while it fails (down to {@code min}), then {@code bisections}
     * halvings of the gap between the highest passing and the lowest failing rate. {@code max} when
     * every doubling passed, 0 when every halving failed.
     */
    static int highestPassing(int first, int min, int max, int bisections, IntPredicate passes) {
        int pass = 0;
        int fail = -1;
        if (passes.test(first)) {
            pass = first;
            for (int rate = first * 2; rate <= max && fail < 0; rate *= 2) {
                if (passes.test(rate)) {
                    pass = rate;
                } else {
                    fail = rate;
                }
            }
            if (fail < 0) {
                return pass;
            }
        } else {
            fail = first;
            for (int rate = first / 2; rate >= min && pass == 0; rate /= 2) {
                if (passes.test(rate)) {
                    pass = rate;
                } else {
                    fail = rate;
                }
            }
            if (pass == 0) {
                return 0;
            }
        }
        for (int i = 0; i < bisections; i++) {
            int mid = (pass + fail) / 2;
            if (mid == pass) {
                break;
            }
            if (passes.test(mid)) {
                pass = mid;
            } else {
                fail = mid;
            }
        }
        return pass;
    }
}
