package io.sluice.features.training;

import io.sluice.catalog.WarehouseSnapshot;
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
        NOT_COMMITTED(
                "is compacted but not committed to the catalog's table (a compaction died between"
                        + " the two): run `sluice compact` to commit it"),
        NOT_IN_SNAPSHOT(
                "has landed events but is not in the pinned snapshot (it was compacted after it, or"
                        + " not compacted then)"),
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
     * The coverage of {@code table} as far as rows reading events in {@code [from, to)} need it,
     * with its files read from {@code snapshot}: every landed hour is classified, but only those in
     * that span are checked against the warehouse (an hour outside it changes no row's answer).
     *
     * <p>A pinned snapshot is the table as it was: it holds whole each hour it has and nothing
     * after its last hour, and an hour before that which has landed events but is not in it was not
     * whole then (or its events landed later), so it is not whole now either.
     */
    static Coverage of(
            SluiceConfig config, TableConfig table, WarehouseSnapshot snapshot, long from, long to)
            throws IOException {
        Optional<Long> first = Optional.of(from < to ? Windows.floor(from, HOUR) : 0L);
        Optional<Long> end = Optional.of(from < to ? to : 0L);
        return snapshot.pinned()
                ? pinned(config, table, snapshot, first.get(), end.get())
                : of(config, table, snapshot, first, end);
    }

    private static Coverage pinned(
            SluiceConfig config, TableConfig table, WarehouseSnapshot snapshot, long from, long to)
            throws IOException {
        TreeMap<Long, Why> notWhole = new TreeMap<>();
        for (LandingScan.Hour h : LandingScan.scan(raw(config, table))) {
            long start = h.hourStart();
            if (start >= from
                    && start < Math.min(to, snapshot.end())
                    && !h.committed().isEmpty()
                    && !snapshot.hours().containsKey(start)) {
                notWhole.put(start, Why.NOT_IN_SNAPSHOT);
            }
        }
        return new Coverage(table.name(), snapshot.end(), notWhole);
    }

    private static org.apache.flink.core.fs.Path raw(SluiceConfig config, TableConfig table) {
        return new org.apache.flink.core.fs.Path(config.tablePath("raw", table.name()));
    }

    private static Coverage of(
            SluiceConfig config,
            TableConfig table,
            WarehouseSnapshot snapshot,
            Optional<Long> from,
            Optional<Long> to)
            throws IOException {
        Set<String> stale =
                new HashSet<>(new WarehouseHours(table, config.rootUri()).pending(from, to, false));
        long until = Long.MIN_VALUE;
        TreeMap<Long, Why> notWhole = new TreeMap<>();
        for (LandingScan.Hour h : LandingScan.scan(raw(config, table))) {
            boolean writing = !h.leftovers().isEmpty();
            if (writing || h.unpublished()) {
                notWhole.put(h.hourStart(), Why.OPEN);
            } else if (stale.contains(h.partition())) {
                if (!h.committed().isEmpty()) {
                    notWhole.put(h.hourStart(), Why.NOT_COMPACTED);
                }
            } else if (snapshot != null && snapshot.uncommitted().contains(h.hourStart())) {
                notWhole.put(h.hourStart(), Why.NOT_COMMITTED);
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
        long until = of(config, table, null, Optional.empty(), Optional.empty()).until();
        return until == Long.MIN_VALUE
                ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(until));
    }
}
