package io.sluice.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax the file accepts ({@code 500ms}, {@code 30s}, {@code 15m}, {@code 1h},
 * {@code 7d}). ISO-8601 and bare numbers are rejected on purpose: a bare {@code 30} is ambiguous
 * and the cost of guessing wrong is a silently misconfigured watermark.
 */
public final class Durations {
    static final String EXPECTED = "a duration such as 500ms, 30s, 15m, 1h or 7d";

    private static final Pattern SYNTAX = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private Durations() {}

    /**
     * @throws IllegalArgumentException if {@code text} is not in the accepted syntax
     */
    public static Duration parse(String text) {
        Matcher m = SYNTAX.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("must be " + EXPECTED + ", got '" + text + "'");
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    /** Formats in the largest unit that divides evenly, so messages echo what people write. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0s";
        }
        if (ms % Duration.ofDays(1).toMillis() == 0) {
            return d.toDays() + "d";
        }
        if (ms % Duration.ofHours(1).toMillis() == 0) {
            return d.toHours() + "h";
        }
        if (ms % Duration.ofMinutes(1).toMillis() == 0) {
            return d.toMinutes() + "m";
        }
        if (ms % 1000 == 0) {
            return d.toSeconds() + "s";
        }
        return ms + "ms";
    }

    /** True when {@code d} is a positive whole multiple of {@code unit}. */
    static boolean isMultipleOf(Duration d, Duration unit) {
        return !d.isZero() && !d.isNegative() && d.toMillis() % unit.toMillis() == 0;
    }
}
