package io.sluice.event;

import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.MissingSchemaException;

/**
 * Decodes Avro single-object encoding (marker, schema fingerprint, binary body). Producers may
 * still write with any released version of the record; each known writer version is resolved to the
 * current schema, and an unknown fingerprint is rejected rather than guessed.
 */
public final class SingleObjectDecoder implements RecordDecoder {

    private final BinaryMessageDecoder<GenericRecord> decoder;

    /**
     * @param current the schema records are resolved to
     * @param writerSchemas every schema a producer may have written with, current included
     */
    public SingleObjectDecoder(Schema current, List<Schema> writerSchemas) {
        this.decoder = new BinaryMessageDecoder<>(GenericData.get(), current);
        writerSchemas.forEach(decoder::addSchema);
    }

    @Override
    public GenericRecord decode(byte[] bytes) throws InvalidEventException {
        try {
            return decoder.decode(bytes);
        } catch (MissingSchemaException e) {
            throw new InvalidEventException(Reason.UNKNOWN_SCHEMA, e.getMessage());
        } catch (BadHeaderException e) {
            throw new InvalidEventException(
                    Reason.MALFORMED, "not Avro single-object encoding: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            // Corrupt bodies surface as many runtime types (bad lengths, bad enum indexes).
            throw new InvalidEventException(
                    Reason.MALFORMED, "corrupt Avro body: " + e.getMessage());
        }
    }
}
