package io.sluice.features.offline;

import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;

/**
 * One feature's figures in a {@link ConsistencyCheck}: how many (entity, time) samples it compared,
 * and how many of them disagreed, were missing online, or missing offline. Numbers agree within a
 * float's or a double's rounding of the offline value; every other value must be equal.
 */
public final class ConsistencyReport {
    public final String feature;
    public long checked;
    public long mismatched;
    public long missingOnline;
    public long missingOffline;
    public double largestDifference;

    ConsistencyReport(String feature) {
        this.feature = feature;
    }

    public long problems() {
        return mismatched + missingOnline + missingOffline;
    }

    /** Counts one comparison of a feature's online value against its offline one. */
    void add(FeatureValue online, FeatureValue offline) {
        checked++;
        boolean onlineHas = online.status() == Status.OK;
        boolean offlineHas = offline.status() == Status.OK;
        if (!onlineHas && offlineHas) {
            missingOnline++;
            return;
        }
        if (onlineHas && !offlineHas) {
            missingOffline++;
            return;
        }
        if (online.status() != offline.status()) {
            mismatched++; // both null, for different reasons (say NOT_FOUND and EMPTY_WINDOW)
            return;
        }
        Object a = online.value();
        Object b = offline.value();
        if (a instanceof Number x && b instanceof Number y) {
            double diff = Math.abs(x.doubleValue() - y.doubleValue());
            largestDifference = Math.max(largestDifference, diff);
            double tolerance =
                    a instanceof Float || b instanceof Float
                            ? Math.abs(y.doubleValue()) * 1e-6
                            : a instanceof Double || b instanceof Double
                                    ? Math.abs(y.doubleValue()) * 1e-9
                                    : 0;
            if (diff > tolerance) {
                mismatched++;
            }
        } else if (a == null ? b != null : !a.equals(b)) {
            mismatched++;
        }
    }
}
