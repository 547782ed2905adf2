package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.RelativeClock;
import org.junit.jupiter.api.Test;

class ValidEventWatermarksTest {

    private static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(5);
    private static final Duration IDLENESS = Duration.ofSeconds(60);

    /** A clock the test moves. */
    private long nanos;

    private final RelativeClock clock =
            new RelativeClock() {
                @Override
                public long relativeTimeMillis() {
                    return nanos / 1_000_000;
                }

                @Override
                public long relativeTimeNanos() {
                    return nanos;
                }
            };

    /** What the generator told its output, in order. */
    private final List<String> said = new ArrayList<>();

    private final WatermarkOutput output =
            new WatermarkOutput() {
                @Override
                public void emitWatermark(Watermark watermark) {
                    said.add("watermark " + watermark.getTimestamp());
                }

                @Override
                public void markIdle() {
                    said.add("idle");
                }

                @Override
                public void markActive() {
                    said.add("active");
                }
            };

    private final ValidEventWatermarks watermarks =
            new ValidEventWatermarks(OUT_OF_ORDERNESS, IDLENESS, clock);

    private static Parsed valid(long eventTime) {
        return Parsed.accepted(new Event("e-" + eventTime, "u-1", eventTime, new byte[0]));
    }

    private static Parsed rejected() {
        return Parsed.rejected(
                new DeadLetter(
                        "t", "topic", 0, 0L, 0L, null, new byte[] {1}, Reason.MALFORMED, "bad"));
    }

    @Test
    void aPartitionOfOnlyDeadLettersGoesIdleAndHoldsNothingBack() {
        watermarks.onEvent(valid(100_000), 100_000, output);
        watermarks.onPeriodicEmit(output);
        assertThat(said).containsExactly("watermark " + (100_000 - 5_000 - 1));

        // Then only rejected records, one a second, for longer than the idleness.
        said.clear();
        for (int s = 1; s <= 70; s++) {
            nanos += 1_000_000_000L;
            watermarks.onEvent(rejected(), Long.MIN_VALUE, output);
            watermarks.onPeriodicEmit(output);
        }
        assertThat(said).as("dead letters are no activity").contains("idle");
        assertThat(said)
                .as("and move no watermark")
                .allMatch(s -> s.equals("idle") || s.equals("watermark " + (100_000 - 5_000 - 1)));

        // A valid event makes it count again.
        said.clear();
        nanos += 1_000_000_000L;
        watermarks.onEvent(valid(200_000), 200_000, output);
        watermarks.onPeriodicEmit(output);
        assertThat(said).containsOnly("watermark " + (200_000 - 5_000 - 1));
    }

    @Test
    void aMinuteOfEventTimeSendsAWatermarkWithoutWaitingForThePeriodicOne() {
        watermarks.onEvent(valid(100_000), 100_000, output);
        watermarks.onEvent(valid(159_999), 159_999, output);
        assertThat(said).as("less than a step").isEmpty();
        watermarks.onEvent(valid(160_000), 160_000, output);
        assertThat(said).containsExactly("watermark " + (160_000 - 5_000 - 1));
        watermarks.onEvent(valid(100_000), 100_000, output);
        watermarks.onEvent(valid(219_999), 219_999, output);
        assertThat(said).as("a step counts from the event that sent the last").hasSize(1);
        watermarks.onEvent(valid(220_000), 220_000, output);
        assertThat(said).last().isEqualTo("watermark " + (220_000 - 5_000 - 1));
    }
}
