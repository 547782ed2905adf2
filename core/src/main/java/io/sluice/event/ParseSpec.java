package io.sluice.event;

import java.io.Serializable;
import java.util.List;
import org.apache.avro.Schema;

/**
 * What the shared parse path needs to know about one table, detached from the YAML model so that it
 * travels inside Flink functions.
 *
 * @param table the table name
 * @param schema the table's current record schema
 * @param writerSchemas every schema a producer may write with (single-object encoding)
 * @param avro whether records are Avro single-object encoded (else JSON)
 * @param strict whether JSON fields unknown to the schema are rejected
 * @param idField the de-duplication id field
 * @param keyField the entity key field
 * @param eventTimeField the event-time field (timestamp-millis)
 * @param maxRecordBytes records larger than this are rejected
 * @param maxPastMillis event times older than now minus this are rejected
 * @param maxFutureMillis event times later than now plus this are rejected
 */
public record ParseSpec(
        String table,
        Schema schema,
        List<Schema> writerSchemas,
        boolean avro,
        boolean strict,
        String idField,
        String keyField,
        String eventTimeField,
        int maxRecordBytes,
        long maxPastMillis,
        long maxFutureMillis)
        implements Serializable {

    public RecordDecoder decoder() {
        return avro
                ? new SingleObjectDecoder(schema, writerSchemas)
                : new JsonRecordDecoder(schema, strict, maxRecordBytes);
    }
}
