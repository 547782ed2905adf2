package io.sluice.features.job;

import io.sluice.features.online.OnlineStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;

/**
 * The current entity's tiles changed since {@link TileAggregator} last published them (start →
 * newest event time among the changes), and the processing-time timer that will publish them, in
 * keyed state (names kept from when it was part of the aggregator, so savepoints restore).
 */
final class PendingTiles {

    private final MapState<Long, Long> fine;
    private final MapState<Long, Long> coarse;
    private final MapState<Long, Long> mid;
    private final ValueState<Long> publishAt;

    PendingTiles(RuntimeContext rc) {
        fine = rc.getMapState(new MapStateDescriptor<>("dirty-fine", Types.LONG, Types.LONG));
        coarse = rc.getMapState(new MapStateDescriptor<>("dirty-coarse", Types.LONG, Types.LONG));
        mid = rc.getMapState(new MapStateDescriptor<>("dirty-mid", Types.LONG, Types.LONG));
        publishAt = rc.getState(new ValueStateDescriptor<>("publish-at", Types.LONG));
    }

    void fine(long start, long eventTime) throws Exception {
        mark(fine, start, eventTime);
    }

    /** Marks the mid or coarse tile at {@code start}. */
    void partials(OnlineStore.Level level, long start, long eventTime) throws Exception {
        mark(level == OnlineStore.Level.COARSE ? coarse : mid, start, eventTime);
    }

    /** Registers the publishing timer {@code delay} from now, unless one is registered. */
    void schedule(TimerService timers, long delay) throws Exception {
        if (publishAt.value() == null) {
            long at = timers.currentProcessingTime() + delay;
            publishAt.update(at);
            timers.registerProcessingTimeTimer(at);
        }
    }

    /** Whether tiles wait to be published. */
    boolean scheduled() throws Exception {
        return publishAt.value() != null;
    }

    /** The changed fine tiles, then forgets them. */
    List<Map.Entry<Long, Long>> takeFine() throws Exception {
        return take(fine);
    }

    /** The changed mid tiles, then forgets them. */
    List<Map.Entry<Long, Long>> takeMid() throws Exception {
        return take(mid);
    }

    /** The changed coarse tiles, then forgets them and the timer. */
    List<Map.Entry<Long, Long>> takeCoarse() throws Exception {
        List<Map.Entry<Long, Long>> taken = take(coarse);
        publishAt.clear();
        return taken;
    }

    private static List<Map.Entry<Long, Long>> take(MapState<Long, Long> dirty) throws Exception {
        List<Map.Entry<Long, Long>> changed = new ArrayList<>();
        dirty.entries().forEach(e -> changed.add(Map.entry(e.getKey(), e.getValue())));
        dirty.clear();
        return changed;
    }

    private static void mark(MapState<Long, Long> dirty, long start, long eventTime)
            throws Exception {
        Long newest = dirty.get(start);
        if (newest == null || newest < eventTime) {
            dirty.put(start, eventTime);
        }
    }
}
