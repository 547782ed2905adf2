package io.sluice.event;

import java.io.IOException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

/**
 * Decodes Avro single-object encoding (marker, schema fingerprint, binary body). Producers may
 * still write with any released version of the record; each known writer version is resolved to the
 * current schema, and an unknown fingerprint is rejected rather than guessed.
 *
 * <p>The body is read by a {@link BoundedBinaryDecoder}, so no length prefix can make it allocate
 * more than the record's own bytes, and it must be consumed exactly: trailing bytes are malformed.
 *
 * <p>Not thread-safe (it reuses its decoder); the parser that owns it is one per task.
 */
public final class SingleObjectDecoder implements RecordDecoder {

    private static final int HEADER_BYTES = 10;

    private final Map<Long, GenericDatumReader<GenericRecord>> readers = new HashMap<>();
    private final BoundedBinaryDecoder body = new BoundedBinaryDecoder();

    /**
     * @param current the schema records are resolved to
     * @param writerSchemas every schema a producer may have written with, current included
     */
    public SingleObjectDecoder(Schema current, List<Schema> writerSchemas) {
        readers.put(
                SchemaNormalization.parsingFingerprint64(current),
                new GenericDatumReader<>(current, current, GenericData.get()));
        for (Schema writer : writerSchemas) {
            readers.putIfAbsent(
                    SchemaNormalization.parsingFingerprint64(writer),
                    new GenericDatumReader<>(writer, current, GenericData.get()));
        }
    }

    @Override
    public GenericRecord decode(byte[] bytes) throws InvalidEventException {
        if (bytes.length < HEADER_BYTES) {
            throw new InvalidEventException(
                    Reason.MALFORMED,
                    "not Avro single-object encoding: " + bytes.length + " bytes, no header");
        }
        if (bytes[0] != (byte) 0xc3 || bytes[1] != 0x01) {
            throw new InvalidEventException(
                    Reason.MALFORMED,
                    "not Avro single-object encoding: unrecognized header bytes "
                            + HexFormat.of().formatHex(bytes, 0, 2));
        }
        long fingerprint = 0;
        for (int i = HEADER_BYTES - 1; i >= 2; i--) {
            fingerprint = (fingerprint << 8) | (bytes[i] & 0xffL);
        }
        GenericDatumReader<GenericRecord> reader = readers.get(fingerprint);
        if (reader == null) {
            throw new InvalidEventException(
                    Reason.UNKNOWN_SCHEMA, "Cannot resolve schema for fingerprint: " + fingerprint);
        }
        GenericRecord record;
        try {
            record = reader.read(null, body.reset(bytes, HEADER_BYTES));
        } catch (IOException | RuntimeException e) {
            // Corrupt bodies surface as many types (bad lengths, bad enum or union indexes).
            throw new InvalidEventException(
                    Reason.MALFORMED, "corrupt Avro body: " + e.getMessage());
        }
        if (body.remaining() != 0) {
            throw new InvalidEventException(
                    Reason.MALFORMED,
                    "corrupt Avro body: " + body.remaining() + " trailing bytes after the record");
        }
        return record;
    }
}
