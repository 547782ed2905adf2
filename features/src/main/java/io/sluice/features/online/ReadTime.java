package io.sluice.features.online;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The time an online read is asked for ({@code get --at}, the server's {@code "at"}), parsed and
 * checked in one place: an ISO instant, kept at the precision given (micro- and nanoseconds move
 * one end of a window or the other, as they do for a training set's row at the same time), not in
 * the future, and not before year 1 (older instants, which {@link Instant} accepts down to year
 * -1,000,000,000, would overflow the readers' millisecond arithmetic).
 */
public final class ReadTime {

    /** The earliest time a read may ask for. */
    static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");

    private ReadTime() {}

    /**
     * Parses {@code text}.
     *
     * @param field what the caller calls it, for the message: {@code --at}, {@code at}
     * @throws IllegalArgumentException naming {@code field} and what is wrong with it
     */
    public static Instant parse(String field, String text, long nowMillis) {
        Instant at;
        try {
            at = Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    field + ": '" + text + "' is not an ISO instant like 2026-11-21T05:30:00Z");
        }
        if (at.isAfter(Instant.ofEpochMilli(nowMillis))) {
            throw new IllegalArgumentException(
                    field
                            + ": "
                            + text
                            + " is in the future; the online store can only answer for times it"
                            + " has seen (now or a past time within retention)");
        }
        if (at.isBefore(EARLIEST)) {
            throw new IllegalArgumentException(
                    field + ": " + text + " is before year 1; no store holds values that old");
        }
        return at;
    }
}
