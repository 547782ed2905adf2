package io.sluice.features.testing;

import io.sluice.config.Aggregation;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * DESIGN.md's definition, computed straight from an entity's accepted events and sharing no code
 * with the tile library:
 *
 * <pre>
 * value(f, e, t) = AGG { x.field : x.key = e, floor_s(t) − W ≤ x.ts &lt; t }
 * </pre>
 *
 * <p>Event times are whole milliseconds; {@code t} may be finer (a spine's micro- or nanosecond
 * times), so every method has a form taking {@code t} in epoch nanoseconds, evaluated exactly:
 * {@code x.ts · 10⁶ < t} and {@code floor_s(t)} of the exact {@code t}.
 */
public final class Definition {

    private Definition() {}

    /**
     * What a reader of {@code view} answers for feature {@code f} of entity e at {@code t}: {@code
     * NOT_FOUND} when e has no event in the view's retention before {@code t} ({@code floor_s(t) −
     * ttl ≤ x.ts < t}), else {@link #value(FeatureDef, long, long, List)}.
     */
    public static FeatureValue value(ViewDef view, FeatureDef f, long t, List<EventEntry> events) {
        return valueAtNanos(view, f, nanos(t), events);
    }

    /** {@link #value(ViewDef, FeatureDef, long, List)} at {@code tNanos}, epoch nanoseconds. */
    public static FeatureValue valueAtNanos(
            ViewDef view, FeatureDef f, long tNanos, List<EventEntry> events) {
        long from = floorToTile(tNanos, view.tileMillis()) - view.ttlMillis();
        boolean known = false;
        for (EventEntry e : events) {
            known |= e.ts() >= from && before(e.ts(), tNanos);
        }
        return known
                ? valueAtNanos(f, view.tileMillis(), tNanos, events)
                : new FeatureValue(null, Status.NOT_FOUND, -1);
    }

    /** {@code value(f, e, t)} over {@code events}, the accepted events of entity e. */
    public static FeatureValue value(FeatureDef f, long tile, long t, List<EventEntry> events) {
        return valueAtNanos(f, tile, nanos(t), events);
    }

    /** {@link #value(FeatureDef, long, long, List)} at {@code tNanos}, epoch nanoseconds. */
    public static FeatureValue valueAtNanos(
            FeatureDef f, long tile, long tNanos, List<EventEntry> events) {
        long start = floorToTile(tNanos, tile) - f.windowMillis();
        List<EventEntry> in = new ArrayList<>();
        for (EventEntry e : events) {
            if (e.ts() >= start && before(e.ts(), tNanos)) {
                in.add(e);
            }
        }
        if (f.agg() == Aggregation.COUNT) {
            long latest = in.stream().mapToLong(EventEntry::ts).max().orElse(-1);
            return new FeatureValue(
                    cast((long) in.size(), f), Status.OK, in.isEmpty() ? -1 : latest);
        }
        List<EventEntry> withValue =
                in.stream().filter(e -> e.values()[f.valueIndex()] != null).toList();
        long latest = withValue.stream().mapToLong(EventEntry::ts).max().orElse(-1);
        if (f.agg() == Aggregation.SUM) {
            Object sum;
            if (f.fractional()) {
                double s = 0;
                for (EventEntry e : withValue) {
                    s += (Double) e.values()[f.valueIndex()];
                }
                sum = s;
            } else {
                long s = 0;
                for (EventEntry e : withValue) {
                    s += (Long) e.values()[f.valueIndex()];
                }
                sum = s;
            }
            return new FeatureValue(cast(sum, f), Status.OK, withValue.isEmpty() ? -1 : latest);
        }
        if (withValue.isEmpty()) {
            return new FeatureValue(null, Status.EMPTY_WINDOW, -1);
        }
        Object result;
        switch (f.agg()) {
            case MIN, MAX -> {
                double best = f.agg() == Aggregation.MIN ? Double.MAX_VALUE : -Double.MAX_VALUE;
                Object bestValue = null;
                for (EventEntry e : withValue) {
                    double v = ((Number) e.values()[f.valueIndex()]).doubleValue();
                    if (f.agg() == Aggregation.MIN ? v < best : v > best) {
                        best = v;
                        bestValue = e.values()[f.valueIndex()];
                    }
                }
                result = bestValue;
            }
            case AVG -> {
                double s = 0;
                for (EventEntry e : withValue) {
                    s += ((Number) e.values()[f.valueIndex()]).doubleValue();
                }
                result = s / withValue.size();
            }
            case LAST -> {
                EventEntry best = null;
                for (EventEntry e : withValue) {
                    if (best == null
                            || e.ts() > best.ts()
                            || e.ts() == best.ts()
                                    && Arrays.compareUnsigned(
                                                    e.id().getBytes(StandardCharsets.UTF_8),
                                                    best.id().getBytes(StandardCharsets.UTF_8))
                                            > 0) {
                        best = e;
                    }
                }
                result = best.values()[f.valueIndex()];
            }
            default -> throw new IllegalStateException();
        }
        return new FeatureValue(cast(result, f), Status.OK, latest);
    }

    /** Epoch millis as epoch nanos. */
    public static long nanos(long millis) {
        return Math.multiplyExact(millis, 1_000_000L);
    }

    /** {@code floor_s(t)} in epoch millis of a time {@code tNanos} in epoch nanos. */
    private static long floorToTile(long tNanos, long tileMillis) {
        long tileNanos = nanos(tileMillis);
        return Math.floorDiv(tNanos, tileNanos) * tileMillis;
    }

    /** Whether an event at {@code ts} (epoch millis) is strictly before {@code tNanos}. */
    private static boolean before(long ts, long tNanos) {
        return nanos(ts) < tNanos;
    }

    private static Object cast(Object v, FeatureDef f) {
        return switch (f.type()) {
            case INT -> (int) ((Number) v).longValue();
            case LONG -> ((Number) v).longValue();
            case FLOAT -> ((Number) v).floatValue();
            case DOUBLE -> ((Number) v).doubleValue();
            case STRING -> v.toString();
        };
    }
}
