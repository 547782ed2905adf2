package io.sluice.event;

import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Drops repeats of an event id, keyed by id, remembering each id for a retention period. Shared by
 * the ingest and features jobs so that the lake and the features see the same event set.
 *
 * <p>Retention uses Flink's state TTL rather than event-time timers: it costs no timer per id, and
 * repeats from producer retries and replays arrive close together in processing time. It also
 * counts the events that are late (behind the watermark); those are still passed on, never dropped.
 */
public class Deduplicator extends KeyedProcessFunction<String, Event, Event> {

    private static final long serialVersionUID = 1L;

    private final Duration retention;
    private transient ValueState<Boolean> seen;
    private transient Counter accepted;
    private transient Counter duplicates;
    private transient Counter late;

    public Deduplicator(Duration retention) {
        this.retention = retention;
    }

    @Override
    public void open(OpenContext openContext) {
        ValueStateDescriptor<Boolean> descriptor =
                new ValueStateDescriptor<>("seen", Types.BOOLEAN);
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(retention)
                        .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                        // Each record adds one id and makes two state accesses; checking one
                        // entry per access keeps up with expiry at a fifth of the default cost.
                        .cleanupIncrementally(1, false)
                        .build());
        seen = getRuntimeContext().getState(descriptor);
        var metrics = getRuntimeContext().getMetricGroup();
        accepted = metrics.counter("recordsAccepted");
        duplicates = metrics.counter("recordsDuplicate");
        late = metrics.counter("recordsLate");
    }

    @Override
    public void processElement(Event event, Context ctx, Collector<Event> out) throws Exception {
        if (seen.value() != null) {
            duplicates.inc();
            return;
        }
        seen.update(Boolean.TRUE);
        if (event.eventTime < ctx.timerService().currentWatermark()) {
            late.inc();
        }
        accepted.inc();
        out.collect(event);
    }
}
