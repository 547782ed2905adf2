package io.sluice.event;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Passes valid events on and sends dead letters to a side output, counting both. Every record in is
 * also counted by the job's {@value #EVENTS_READ} accumulator, which a bounded job's caller reads
 * for its progress (the backfill).
 */
public final class DeadLetterRouter extends ProcessFunction<Parsed, Event> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("dead-letters") {
                private static final long serialVersionUID = 1L;
            };

    /** The accumulator counting every record read, valid or not. */
    public static final String EVENTS_READ = "events read";

    private transient Counter in;
    private transient LongCounter read;
    private transient Counter deadLettered;

    @Override
    public void open(OpenContext openContext) {
        in = getRuntimeContext().getMetricGroup().counter("recordsIn");
        deadLettered = getRuntimeContext().getMetricGroup().counter("recordsDeadLettered");
        read = getRuntimeContext().getLongCounter(EVENTS_READ);
    }

    @Override
    public void processElement(Parsed parsed, Context ctx, Collector<Event> out) {
        in.inc();
        read.add(1);
        if (parsed.isValid()) {
            out.collect(parsed.event);
        } else {
            deadLettered.inc();
            ctx.output(DEAD_LETTERS, parsed.deadLetter);
        }
    }
}
