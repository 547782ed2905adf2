package io.sluice.app;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The {@code --from}/{@code --to} hour range of the commands that work on landed hours. */
final class HourRange {

    @Option(
            names = "--from",
            description = "First hour (inclusive), UTC: 2026-11-21T00 or an ISO instant.")
    String from;

    @Option(
            names = "--to",
            description = "Hour to stop before (exclusive), UTC: 2026-11-21T06 or an ISO instant.")
    String to;

    Optional<Instant> from() {
        return hour("--from", from);
    }

    Optional<Instant> to() {
        return hour("--to", to);
    }

    boolean isEmpty() {
        return from == null && to == null;
    }

    /** Parses {@code 2026-11-21T00}, {@code 2026-11-21T00:00} or an ISO instant, as UTC. */
    static Optional<Instant> hour(String option, String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            if (text.endsWith("Z")) {
                return Optional.of(Instant.parse(text));
            }
            String local = text.length() == 13 ? text + ":00" : text;
            return Optional.of(LocalDateTime.parse(local).toInstant(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    option + ": '" + text + "' is not an hour like 2026-11-21T06 (UTC)");
        }
    }
}
