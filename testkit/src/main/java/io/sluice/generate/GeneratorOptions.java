package io.sluice.generate;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * How the generator shapes its stream. Defaults give a stream with every kind of trouble the
 * pipeline must survive, at rates small enough that most events are ordinary.
 *
 * @param events how many records to emit, duplicates and invalid ones included
 * @param seed the seed; the same options give the same records, byte for byte
 * @param start event time of the first event
 * @param span event times spread evenly over {@code [start, start + span)} before jitter
 * @param outOfOrderness events are shifted back in time by up to this much
 * @param duplicateRate fraction of records that re-send an earlier event
 * @param invalidRate fraction of records that are invalid, cycling through every kind
 * @param lateRate fraction of events that arrive far behind the stream (late for their hour)
 * @param lateBy how far behind late events are
 * @param users number of distinct users (Zipf-distributed)
 * @param items number of distinct items (Zipf-distributed)
 */
public record GeneratorOptions(
        long events,
        long seed,
        Instant start,
        Duration span,
        Duration outOfOrderness,
        double duplicateRate,
        double invalidRate,
        double lateRate,
        Duration lateBy,
        int users,
        int items) {

    public static final Duration DEFAULT_SPAN = Duration.ofHours(6);

    public GeneratorOptions {
        require(events >= 0, "events must be >= 0");
        require(!span.isNegative() && !span.isZero(), "span must be positive");
        require(!outOfOrderness.isNegative(), "out-of-orderness must not be negative");
        require(
                rate(duplicateRate) && rate(invalidRate) && rate(lateRate),
                "rates must be in [0, 1)");
        require(duplicateRate + invalidRate + lateRate < 1, "rates must sum to less than 1");
        require(users > 0 && items > 0, "users and items must be positive");
    }

    /**
     * Defaults: six hours of events ending at the last full hour before now, 20 s of
     * out-of-orderness, 2% duplicates, 2% invalid, 0.1% late.
     */
    public static GeneratorOptions defaults(long events, long seed) {
        Instant start =
                Instant.now().truncatedTo(ChronoUnit.HOURS).minus(DEFAULT_SPAN).minusSeconds(3600);
        return new GeneratorOptions(
                events,
                seed,
                start,
                DEFAULT_SPAN,
                Duration.ofSeconds(20),
                0.02,
                0.02,
                0.001,
                Duration.ofHours(1),
                5_000,
                2_000);
    }

    public GeneratorOptions withStart(Instant newStart) {
        return new GeneratorOptions(
                events,
                seed,
                newStart,
                span,
                outOfOrderness,
                duplicateRate,
                invalidRate,
                lateRate,
                lateBy,
                users,
                items);
    }

    public GeneratorOptions withSpan(Duration newSpan) {
        return new GeneratorOptions(
                events,
                seed,
                start,
                newSpan,
                outOfOrderness,
                duplicateRate,
                invalidRate,
                lateRate,
                lateBy,
                users,
                items);
    }

    public GeneratorOptions withRates(double duplicates, double invalid, double late) {
        return new GeneratorOptions(
                events,
                seed,
                start,
                span,
                outOfOrderness,
                duplicates,
                invalid,
                late,
                lateBy,
                users,
                items);
    }

    private static boolean rate(double r) {
        return r >= 0 && r < 1;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
