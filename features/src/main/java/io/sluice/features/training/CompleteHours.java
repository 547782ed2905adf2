package io.sluice.features.training;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.Windows;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LandingScan;
import io.sluice.lake.WarehouseHours;
import java.io.IOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a table's warehouse holds whole, as the training-set builder must know it: a value computed
 * from an hour whose landing is still open, or complete but not compacted (or re-opened since), or
 * from after the last hour that is complete and compacted, would miss events.
 */
final class CompleteHours {

    /** {@link Coverage#missing} when a row's span needs nothing the warehouse lacks. */
    static final long NONE = Long.MIN_VALUE;

    private static final long HOUR = HourPartitioner.hourMillis();

    private CompleteHours() {}

    /** Why an hour is not whole. */
    enum Why {
        OPEN("is still open (no _SUCCESS in raw/, or events landed since it was complete)"),
        NOT_COMPACTED(
                "is complete but not compacted (or changed since it was): run `sluice compact`"
                        + " first"),
        NOT_LANDED("has not landed or is not complete yet");

        final String text;

        Why(String text) {
            this.text = text;
        }
    }

    /**
     * A table's coverage.
     *
     * @param table its name
     * @param until the end of its last complete, compacted hour, {@link Long#MIN_VALUE} when it has
     *     none: the warehouse holds no event at or after it
     * @param notWhole the hours that have landed but are open or not compacted, with why
     */
    record Coverage(String table, long until, TreeMap<Long, Why> notWhole)
            implements java.io.Serializable {

        /**
         * The first hour the warehouse does not hold whole among those a row reading events in
         * {@code [from, end)} needs, or {@link #NONE}: an hour in it that is open or not compacted,
         * or, when {@code end} is later than {@link #until}, the first hour after it. Hours with no
         * landing before {@code until} held no event and are whole.
         */
        long missing(long from, long end) {
            long first = Windows.floor(from, HOUR);
            Long bad = notWhole.ceilingKey(first);
            long missing = bad != null && bad < end ? bad : Long.MAX_VALUE;
            if (end > until) {
                missing = Math.min(missing, Math.max(until, first));
            }
            return missing == Long.MAX_VALUE ? NONE : missing;
        }

        /** What is wrong with {@code hour}, as returned by {@link #missing}. */
        Why why(long hour) {
            return notWhole.getOrDefault(hour, Why.NOT_LANDED);
        }

        /** The coverage in words, for messages. */
        String describe() {
            return until == Long.MIN_VALUE
                    ? "the warehouse holds no complete, compacted hour of " + table
                    : String.format(
                            "the warehouse covers %s before %s, the end of its last complete,"
                                    + " compacted hour %s",
                            table,
                            Instant.ofEpochMilli(until),
                            HourPartitioner.partition(until - HOUR));
        }
    }

    /**
     * The coverage of {@code table} as far as rows reading events in {@code [from, to)} need it:
     * every landed hour is classified, but only those in that span are checked against the
     * warehouse (an hour outside it changes no row's answer).
     */
    static Coverage of(SluiceConfig config, TableConfig table, long from, long to)
            throws IOException {
        return from < to
                ? of(config, table, Optional.of(Windows.floor(from, HOUR)), Optional.of(to))
                : of(config, table, Optional.of(0L), Optional.of(0L));
    }

    private static Coverage of(
            SluiceConfig config, TableConfig table, Optional<Long> from, Optional<Long> to)
            throws IOException {
        Set<String> stale =
                new HashSet<>(new WarehouseHours(table, config.rootUri()).pending(from, to, false));
        long until = Long.MIN_VALUE;
        TreeMap<Long, Why> notWhole = new TreeMap<>();
        for (LandingScan.Hour h :
                LandingScan.scan(
                        new org.apache.flink.core.fs.Path(config.tablePath("raw", table.name())))) {
            boolean writing = !h.leftovers().isEmpty();
            if (writing || h.unpublished()) {
                notWhole.put(h.hourStart(), Why.OPEN);
            } else if (stale.contains(h.partition())) {
                if (!h.committed().isEmpty()) {
                    notWhole.put(h.hourStart(), Why.NOT_COMPACTED);
                }
            } else if (h.manifested() != null) {
                until = Math.max(until, h.hourStart() + HOUR);
            }
            // An hour directory with nothing committed and no manifest holds no event.
        }
        return new Coverage(table.name(), until, notWhole);
    }

    /** {@link Coverage#until} of {@code table}, over all its hours. */
    static Optional<Instant> coveredUntil(SluiceConfig config, TableConfig table)
            throws IOException {
        long until = of(config, table, Optional.empty(), Optional.empty()).until();
        return until == Long.MIN_VALUE
                ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(until));
    }
}
