package io.sluice.generate;

import io.sluice.event.Reason;

/**
 * One record the generator emits, with what the pipeline should make of it.
 *
 * @param table the table it is for
 * @param topic the topic to produce it to
 * @param key the Kafka key (the entity key's bytes)
 * @param value the Kafka value
 * @param kind whether it is a new valid event, a re-sent one, or invalid
 * @param reason for an invalid record, the reason it must be dead-lettered with
 * @param eventId the event id (null for invalid records)
 * @param eventTime the event time (0 for invalid records)
 */
public record GeneratedRecord(
        String table,
        String topic,
        byte[] key,
        byte[] value,
        Kind kind,
        Reason reason,
        String eventId,
        long eventTime) {

    /** What the record is. */
    public enum Kind {
        VALID,
        DUPLICATE,
        INVALID
    }
}
