package io.sluice.features.agg;

import io.sluice.config.Aggregation;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The partial aggregate of one feature over a set of events: mergeable in any order and grouping
 * (count, sums, min, max, and last by (time, id)), so that a window's value is the same however its
 * events were split into tiles. Null field values count for nothing except in {@code count}, which
 * counts events.
 */
public final class Partial {

    /** Events counted: every event for count, events with a non-null value otherwise. */
    long count;

    long longSum;
    double doubleSum;
    Object min;
    Object max;
    Object last;
    long lastTs = Long.MIN_VALUE;
    String lastId;

    /** The latest event time that contributed, or {@link Long#MIN_VALUE}. */
    long latestTs = Long.MIN_VALUE;

    public Partial() {}

    /** Adds one event's value of {@code feature}. */
    public void add(FeatureDef feature, EventEntry event) {
        Object value = feature.valueIndex() < 0 ? null : event.values()[feature.valueIndex()];
        if (feature.agg() != Aggregation.COUNT && value == null) {
            return;
        }
        count++;
        latestTs = Math.max(latestTs, event.ts());
        if (value == null) {
            return;
        }
        if (value instanceof Long l) {
            longSum += l;
        } else if (value instanceof Double d) {
            doubleSum += d;
        }
        if (!(value instanceof String)) {
            if (min == null || compare(value, min) < 0) {
                min = value;
            }
            if (max == null || compare(value, max) > 0) {
                max = value;
            }
        }
        if (later(event.ts(), event.id(), lastTs, lastId)) {
            last = value;
            lastTs = event.ts();
            lastId = event.id();
        }
    }

    /** Merges {@code other} into this. */
    public void merge(Partial other) {
        if (other.count == 0) {
            return;
        }
        count += other.count;
        longSum += other.longSum;
        doubleSum += other.doubleSum;
        latestTs = Math.max(latestTs, other.latestTs);
        if (other.min != null && (min == null || compare(other.min, min) < 0)) {
            min = other.min;
        }
        if (other.max != null && (max == null || compare(other.max, max) > 0)) {
            max = other.max;
        }
        if (other.lastId != null && later(other.lastTs, other.lastId, lastTs, lastId)) {
            last = other.last;
            lastTs = other.lastTs;
            lastId = other.lastId;
        }
    }

    /** Whether it counts no event. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** The feature's value from this partial, in its declared type. */
    public FeatureValue value(FeatureDef feature) {
        long eventTime = count == 0 ? -1 : latestTs;
        Object raw =
                switch (feature.agg()) {
                    case COUNT -> count;
                    case SUM -> feature.fractional() ? (Object) doubleSum : (Object) longSum;
                    case MIN -> min;
                    case MAX -> max;
                    case AVG ->
                            count == 0
                                    ? null
                                    : (feature.fractional() ? doubleSum : (double) longSum) / count;
                    case LAST -> last;
                };
        if (raw == null) {
            return new FeatureValue(null, Status.EMPTY_WINDOW, -1);
        }
        return new FeatureValue(Values.as(raw, feature.type()), Status.OK, eventTime);
    }

    /** Whether (ts, id) is later than (otherTs, otherId): by time, then by the greater id. */
    static boolean later(long ts, String id, long otherTs, String otherId) {
        if (otherId == null) {
            return true;
        }
        if (ts != otherTs) {
            return ts > otherTs;
        }
        return compareIds(id, otherId) > 0;
    }

    /** Ids order by their UTF-8 bytes, as SQL engines order strings. */
    static int compareIds(String a, String b) {
        return Arrays.compareUnsigned(
                a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        return ((Comparable) a).compareTo(b);
    }
}
