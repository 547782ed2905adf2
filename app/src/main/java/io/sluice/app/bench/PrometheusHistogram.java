package io.sluice.app.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One series of a Prometheus histogram, read from the text exposition format: its cumulative bucket
 * counts by upper bound ({@code le}). Two scrapes subtracted give the requests in between, and a
 * quantile of those is estimated as Prometheus's {@code histogram_quantile} does.
 *
 * @param bounds the finite upper bounds, ascending, then {@code +Inf}
 * @param cumulative how many observations were at most each bound
 */
record PrometheusHistogram(double[] bounds, long[] cumulative) {

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * The series of histogram {@code name} (without {@code _bucket}) whose labels include {@code
     * labels}; empty (no buckets) when the text has none, as before a series' first observation.
     */
    static PrometheusHistogram parse(String text, String name, Map<String, String> labels) {
        String prefix = name + "_bucket{";
        TreeMap<Double, Long> buckets = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith(prefix)) {
                continue;
            }
            int close = line.lastIndexOf('}');
            Map<String, String> found = new TreeMap<>();
            Matcher m = LABEL.matcher(line.substring(prefix.length(), close));
            while (m.find()) {
                found.put(m.group(1), m.group(2));
            }
            if (!found.entrySet().containsAll(labels.entrySet())) {
                continue;
            }
            String le = found.get("le");
            double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            long count = (long) Double.parseDouble(line.substring(close + 1).strip().split(" ")[0]);
            buckets.merge(bound, count, Long::sum);
        }
        double[] bounds = new double[buckets.size()];
        long[] counts = new long[buckets.size()];
        int i = 0;
        for (var e : buckets.entrySet()) {
            bounds[i] = e.getKey();
            counts[i++] = e.getValue();
        }
        return new PrometheusHistogram(bounds, counts);
    }

    /** The observations made after {@code earlier}, a previous scrape of the same series. */
    PrometheusHistogram minus(PrometheusHistogram earlier) {
        long[] counts = cumulative.clone();
        for (int i = 0; i < bounds.length; i++) {
            counts[i] -= earlier.countAtMost(bounds[i]);
        }
        return new PrometheusHistogram(bounds, counts);
    }

    private long countAtMost(double bound) {
        long count = 0;
        for (int i = 0; i < bounds.length && bounds[i] <= bound; i++) {
            count = cumulative[i];
        }
        return count;
    }

    /** How many observations there are. */
    long count() {
        return bounds.length == 0 ? 0 : cumulative[bounds.length - 1];
    }

    /**
     * The {@code q} quantile, interpolated linearly within its bucket (the first bucket starts at
     * 0); the highest finite bound when it falls in the {@code +Inf} bucket; NaN without
     * observations.
     */
    double quantile(double q) {
        long total = count();
        if (total == 0) {
            return Double.NaN;
        }
        double rank = q * total;
        for (int i = 0; i < bounds.length; i++) {
            if (cumulative[i] >= rank) {
                if (Double.isInfinite(bounds[i])) {
                    return i == 0 ? Double.NaN : bounds[i - 1];
                }
                double lower = i == 0 ? 0 : bounds[i - 1];
                long below = i == 0 ? 0 : cumulative[i - 1];
                long inBucket = cumulative[i] - below;
                return inBucket == 0
                        ? bounds[i]
                        : lower + (bounds[i] - lower) * (rank - below) / inBucket;
            }
        }
        return bounds[bounds.length - 1];
    }
}
