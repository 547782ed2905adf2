package io.sluice.event;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.eventtime.WatermarksWithIdleness;
import org.apache.flink.util.clock.RelativeClock;

/**
 * A table source's watermarks, per Kafka partition: bounded out-of-orderness over the valid events'
 * times, and idle after the table's {@code idleness} without a valid event.
 *
 * <p>A dead letter neither moves the watermark nor keeps its partition from idling. With Flink's
 * own {@code withIdleness} every record counted as activity, so a partition that received only
 * rejected records (a producer writing a schema the job does not know, tombstones, a broken clock)
 * never went idle, held the table's watermark at its last valid event, and no hour of the table was
 * ever completed: one bad producer stopped the table.
 *
 * <p>Besides every periodic emit, a watermark goes out as soon as a partition's events have moved
 * {@link #STEP} of event time since the last one that did. Reading a backlog, periodic watermarks
 * cover whatever the source read in between (hours of events, in a bounded run's last interval),
 * and a bounded run ends without a last one: the features job's written-through mark ({@code
 * OnlineSink}) would stay that far behind the tiles it wrote. With the step it stays within a
 * minute (plus the out-of-orderness) of event time, at one more watermark per minute of events.
 */
public final class ValidEventWatermarks implements WatermarkGenerator<Parsed> {

    /** How far a partition's event time moves between the watermarks its events send at once. */
    static final long STEP = 60_000;

    private final WatermarkGenerator<Parsed> watermarks;

    /** The event time that last sent a watermark at once, or the first one seen (or none yet). */
    private long stepped = Long.MIN_VALUE;

    public ValidEventWatermarks(
            Duration maxOutOfOrderness, Duration idleness, RelativeClock activityClock) {
        this.watermarks =
                new WatermarksWithIdleness<>(
                        new BoundedOutOfOrdernessWatermarks<>(maxOutOfOrderness),
                        idleness,
                        activityClock);
    }

    /** The strategy: these watermarks, and a valid event's time as its timestamp. */
    public static WatermarkStrategy<Parsed> strategy(
            Duration maxOutOfOrderness, Duration idleness) {
        return WatermarkStrategy.<Parsed>forGenerator(
                        context ->
                                new ValidEventWatermarks(
                                        maxOutOfOrderness,
                                        idleness,
                                        context.getInputActivityClock()))
                // Dead letters carry no trustworthy time; MIN_VALUE never moves a watermark.
                .withTimestampAssigner((p, ts) -> p.isValid() ? p.event.eventTime : Long.MIN_VALUE);
    }

    @Override
    public void onEvent(Parsed record, long timestamp, WatermarkOutput output) {
        if (record.isValid()) {
            watermarks.onEvent(record, timestamp, output);
            if (stepped == Long.MIN_VALUE) {
                stepped = timestamp;
            } else if (timestamp - stepped >= STEP) {
                stepped = timestamp;
                watermarks.onPeriodicEmit(output);
            }
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        watermarks.onPeriodicEmit(output);
    }
}
