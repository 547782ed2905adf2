package io.sluice.event;

import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link DuplicateRule} to the copies of an event id, keyed by {@link DuplicateRule#unit}
 * (id and event-time hour), remembering the kept copy's event time and digest for a retention
 * period. Shared by the ingest and features jobs so that the lake and the features see the same
 * event set.
 *
 * <ul>
 *   <li>An exact repeat of the kept copy (same time and digest) is dropped and counted as {@code
 *       recordsDuplicate}.
 *   <li>A copy that loses to the kept one is dropped and counted as {@code
 *       recordsDuplicateConflict}; conflicts are logged at WARN with the id, at most once a second
 *       per subtask (the rest are counted in the next message).
 *   <li>A copy that beats the kept one becomes the kept one and is passed on (also counted as a
 *       conflict). In the lake mode ({@link #forLake}) that is all: the landing zone may then hold
 *       both copies, and compaction applies the same rule. In the retracting mode ({@link
 *       #withRetractions}, the features job) it is preceded by {@link Event#retraction} of the
 *       superseded copy, so the tiles drop the old copy and add the new one.
 * </ul>
 *
 * <p>Retention uses Flink's state TTL rather than event-time timers: it costs no timer per id, and
 * repeats from producer retries and replays arrive close together in processing time. It also
 * counts the events that are late (behind the watermark); those are still passed on, never dropped.
 */
public class Deduplicator extends KeyedProcessFunction<String, Event, Event> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(Deduplicator.class);
    private static final long WARN_INTERVAL_MILLIS = 1_000;

    /**
     * What is remembered of the kept copy of an (id, hour). A Flink POJO, held in state by {@link
     * KeptSerializer} in the POJO serializer's format. Never changed once made: a new kept copy
     * replaces it.
     */
    public static class Kept {
        /** Its event time. */
        public long eventTime;

        /** Its {@link DuplicateRule#digest}. */
        public byte[] digest;

        /** Its entity key, kept only in the retracting mode; null otherwise. */
        public String key;

        public Kept() {}

        public Kept(long eventTime, byte[] digest, String key) {
            this.eventTime = eventTime;
            this.digest = digest;
            this.key = key;
        }
    }

    private final Duration retention;
    private final boolean retract;
    private transient ValueState<Kept> kept;
    private transient java.security.MessageDigest sha256;
    private transient Counter accepted;
    private transient Counter duplicates;
    private transient Counter conflicts;
    private transient Counter late;
    private transient long lastWarn;
    private transient long unlogged;

    private Deduplicator(Duration retention, boolean retract) {
        this.retention = retention;
        this.retract = retract;
    }

    /** The ingest job's mode: a copy that beats the kept one is passed on, nothing is retracted. */
    public static Deduplicator forLake(Duration retention) {
        return new Deduplicator(retention, false);
    }

    /**
     * The features job's mode: a copy that beats the kept one is passed on after a retraction of
     * the copy it supersedes.
     */
    public static Deduplicator withRetractions(Duration retention) {
        return new Deduplicator(retention, true);
    }

    @Override
    public void open(OpenContext openContext) {
        ValueStateDescriptor<Kept> descriptor =
                new ValueStateDescriptor<>("kept", new KeptSerializer());
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(retention)
                        .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                        // Each record adds one id and makes two state accesses; checking one
                        // entry per access keeps up with expiry at a fifth of the default cost.
                        .cleanupIncrementally(1, false)
                        .build());
        kept = getRuntimeContext().getState(descriptor);
        sha256 = DuplicateRule.sha256();
        var metrics = getRuntimeContext().getMetricGroup();
        accepted = metrics.counter("recordsAccepted");
        duplicates = metrics.counter("recordsDuplicate");
        conflicts = metrics.counter("recordsDuplicateConflict");
        late = metrics.counter("recordsLate");
    }

    @Override
    public void processElement(Event event, Context ctx, Collector<Event> out) throws Exception {
        byte[] digest = DuplicateRule.digest(sha256, event.payload);
        Kept previous = kept.value();
        if (previous != null) {
            int c =
                    DuplicateRule.compare(
                            event.eventTime, digest, previous.eventTime, previous.digest);
            if (c == 0) {
                duplicates.inc();
                return;
            }
            conflicts.inc();
            warn(event, c < 0);
            if (c > 0) {
                return; // the kept copy wins
            }
            if (retract) {
                out.collect(Event.retraction(event.id, previous.key, previous.eventTime));
            }
        }
        kept.update(new Kept(event.eventTime, digest, retract ? event.key : null));
        if (event.eventTime < ctx.timerService().currentWatermark()) {
            late.inc();
        }
        accepted.inc();
        out.collect(event);
    }

    private void warn(Event event, boolean replaces) {
        long now = System.currentTimeMillis();
        if (now - lastWarn < WARN_INTERVAL_MILLIS) {
            unlogged++;
            return;
        }
        LOG.warn(
                "Id {} arrived again with a different payload in hour {}: {} (by the earliest event"
                        + " time, then the smallest payload digest){}",
                event.id,
                java.time.Instant.ofEpochMilli(DuplicateRule.hour(event.eventTime)),
                replaces ? "this copy replaces the kept one" : "the kept copy wins",
                unlogged == 0 ? "" : "; " + unlogged + " more conflicts since the last message");
        lastWarn = now;
        unlogged = 0;
    }

    /** Conflicting copies seen by this instance (for tests; the metric is the real interface). */
    long conflictCount() {
        return conflicts.getCount();
    }

    /** Exact repeats dropped by this instance (for tests). */
    long duplicateCount() {
        return duplicates.getCount();
    }
}
