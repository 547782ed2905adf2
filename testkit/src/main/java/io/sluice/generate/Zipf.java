package io.sluice.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Samples ranks 1..n with probability proportional to 1/rank^s, so a few keys are hot. */
final class Zipf {

    private final double[] cdf;

    Zipf(int n, double s) {
        cdf = new double[n];
        double sum = 0;
        for (int rank = 1; rank <= n; rank++) {
            sum += 1.0 / Math.pow(rank, s);
            cdf[rank - 1] = sum;
        }
        for (int i = 0; i < n; i++) {
            cdf[i] /= sum;
        }
    }

    int sample(SplittableRandom random) {
        int i = Arrays.binarySearch(cdf, random.nextDouble());
        return (i >= 0 ? i : -i - 1) + 1;
    }
}
