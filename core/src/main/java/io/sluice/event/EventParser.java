package io.sluice.event;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.function.LongSupplier;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The one parse-and-validate path that every job shares: bytes in, an {@link Event} or a {@link
 * DeadLetter} out. It never throws, whatever the input, so a bad record can never stop a job.
 *
 * <p>Not thread-safe (it reuses its encoder); create one per task.
 */
public final class EventParser {

    private final ParseSpec spec;

    /** Whether the event time field holds microseconds ({@code timestamp-micros}), not millis. */
    private final boolean micros;

    private final RecordDecoder decoder;
    private final LongSupplier clock;
    private final GenericDatumWriter<GenericRecord> writer;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(512);
    private BinaryEncoder encoder;

    public EventParser(ParseSpec spec, LongSupplier clock) {
        this.spec = spec;
        Schema.Field time = spec.schema().getField(spec.eventTimeField());
        this.micros =
                time != null
                        && time.schema().getLogicalType() instanceof LogicalTypes.TimestampMicros;
        this.decoder = spec.decoder();
        this.clock = clock;
        this.writer = new GenericDatumWriter<>(spec.schema());
    }

    /**
     * Parses one source record; {@code key} and {@code value} are its original bytes. Never throws:
     * what the decoders cannot bound or foresee (a decoder bug, a stack overflow) becomes a {@link
     * Reason#MALFORMED} dead letter with the failure's message.
     */
    public Parsed parse(
            String topic, int partition, long offset, long timestamp, byte[] key, byte[] value) {
        Reason reason;
        String message;
        try {
            return Parsed.accepted(toEvent(value));
        } catch (InvalidEventException e) {
            reason = e.reason();
            message = e.getMessage();
        } catch (RuntimeException | StackOverflowError e) {
            reason = Reason.MALFORMED;
            message = "unexpected parse failure: " + e;
        }
        return Parsed.rejected(
                new DeadLetter(
                        spec.table(),
                        topic,
                        partition,
                        offset,
                        timestamp,
                        key,
                        value,
                        reason,
                        message));
    }

    /** Decodes and validates one record. */
    public Event toEvent(byte[] value) throws InvalidEventException {
        if (value == null || value.length == 0) {
            throw new InvalidEventException(Reason.MALFORMED, "empty record");
        }
        if (value.length > spec.maxRecordBytes()) {
            throw new InvalidEventException(
                    Reason.OVERSIZE,
                    "record of "
                            + value.length
                            + " bytes exceeds max_record_bytes "
                            + spec.maxRecordBytes());
        }
        GenericRecord record = decoder.decode(value);
        String id = requiredText(record, spec.idField());
        String key = requiredText(record, spec.keyField());
        Object time = record.get(spec.eventTimeField());
        if (!(time instanceof Long eventTime)) {
            throw new InvalidEventException(
                    Reason.MISSING_FIELD, "missing event time '" + spec.eventTimeField() + "'");
        }
        // An event's time is milliseconds everywhere (its hour, its tiles); the record keeps the
        // field as it is.
        long millis = micros ? Math.floorDiv(eventTime, 1000L) : eventTime;
        checkTime(millis);
        return new Event(id, key, millis, encode(record));
    }

    /**
     * The times whose hour a lake partition can name ({@code dt=YYYY-MM-DD}, a four-digit year):
     * the years 1 to 9999. A later year made a partition name that its own parser refused, failing
     * the job at every restart; an earlier one lost its era.
     */
    static final long FIRST_TIME = Instant.parse("0001-01-01T00:00:00Z").toEpochMilli();

    static final long END_TIME = Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli();

    private void checkTime(long eventTime) throws InvalidEventException {
        if (eventTime < FIRST_TIME || eventTime >= END_TIME) {
            throw new InvalidEventException(
                    Reason.TIMESTAMP_OUT_OF_RANGE,
                    "event time "
                            + Instant.ofEpochMilli(eventTime)
                            + " is outside the years 1 to 9999, which an hour partition"
                            + " (dt=YYYY-MM-DD) can name");
        }
        long now = clock.getAsLong();
        if (eventTime > now + spec.maxFutureMillis() || eventTime < now - spec.maxPastMillis()) {
            throw new InvalidEventException(
                    Reason.TIMESTAMP_OUT_OF_RANGE,
                    "event time "
                            + Instant.ofEpochMilli(eventTime)
                            + " is outside [now - max_past, now + max_future] = ["
                            + Instant.ofEpochMilli(now - spec.maxPastMillis())
                            + ", "
                            + Instant.ofEpochMilli(now + spec.maxFutureMillis())
                            + "]");
        }
    }

    private static String requiredText(GenericRecord record, String field)
            throws InvalidEventException {
        Object value = record.get(field);
        String text = value == null ? "" : value.toString();
        if (text.isEmpty()) {
            throw new InvalidEventException(
                    Reason.MISSING_FIELD, "field '" + field + "' is null or empty");
        }
        return text;
    }

    private byte[] encode(GenericRecord record) {
        buffer.reset();
        encoder = EncoderFactory.get().binaryEncoder(buffer, encoder);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("in-memory encoding cannot fail", e);
        }
        return buffer.toByteArray();
    }
}
