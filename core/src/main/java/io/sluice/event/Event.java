package io.sluice.event;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * An accepted event on its way to the lake and the features: the fields every job needs, plus the
 * whole record Avro-binary-encoded in the table's current schema.
 *
 * <p>A plain class rather than a {@code GenericRecord}, so that the landing sink can append the
 * payload without re-encoding it. It crosses exchanges through {@link EventSerializer} (never Kryo,
 * and without the POJO serializer's reflection).
 */
@TypeInfo(EventTypeInfo.Factory.class)
public class Event {

    /** The de-duplication id, as text. */
    public String id;

    /** The entity key, as text. */
    public String key;

    /** Event time, epoch milliseconds UTC. */
    public long eventTime;

    /** The record, Avro binary in the table's current schema; empty in a retraction. */
    public byte[] payload;

    /**
     * True if this element withdraws an earlier copy of its id (the one with this id, key and event
     * time) that lost to a later-arriving copy under {@link DuplicateRule}. Only the features job's
     * de-duplication emits retractions ({@link Deduplicator#withRetractions}); the lake never sees
     * one.
     */
    public boolean retraction;

    public Event() {}

    public Event(String id, String key, long eventTime, byte[] payload) {
        this.id = id;
        this.key = key;
        this.eventTime = eventTime;
        this.payload = payload;
    }

    /** Withdraws the copy of {@code id} with this entity key and event time. */
    public static Event retraction(String id, String key, long eventTime) {
        Event e = new Event(id, key, eventTime, new byte[0]);
        e.retraction = true;
        return e;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event e
                && eventTime == e.eventTime
                && retraction == e.retraction
                && Objects.equals(id, e.id)
                && Objects.equals(key, e.key)
                && Arrays.equals(payload, e.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, key, eventTime) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "Event{id="
                + id
                + ", key="
                + key
                + ", eventTime="
                + eventTime
                + (retraction ? ", retraction" : "")
                + "}";
    }
}
