package io.sluice.compact;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.util.Utf8;

/**
 * A row as it is spilled to local disk, in Avro's binary encoding: {@code seq} (long), {@code
 * idHash} (long), {@code time} (long), {@code bucket} (int), the key in its own field's schema, and
 * the payload (bytes), which is the row already encoded in the table's schema. The fields are
 * written through Avro's {@code Encoder} one by one rather than as a {@code GenericRecord}: a spill
 * record lives for one write and one read, and a record object per row would only feed the garbage
 * collector.
 */
final class SpillCodec {

    private final GenericDatumWriter<Object> keyWriter;
    private final GenericDatumReader<Object> keyReader;

    /**
     * @param keySchema the schema of the table's key field
     */
    SpillCodec(Schema keySchema) {
        this.keyWriter = new GenericDatumWriter<>(keySchema);
        this.keyReader = new GenericDatumReader<>(keySchema);
    }

    void write(HourRows.Row row, BinaryEncoder out) throws IOException {
        out.writeLong(row.seq);
        out.writeLong(row.idHash);
        out.writeLong(row.time);
        out.writeInt(row.bucket);
        keyWriter.write(row.key, out);
        out.writeBytes(row.payload);
    }

    HourRows.Row read(BinaryDecoder in) throws IOException {
        long seq = in.readLong();
        long idHash = in.readLong();
        long time = in.readLong();
        int bucket = in.readInt();
        Object key = keyReader.read(null, in);
        if (!(key instanceof Utf8)) {
            key = RowValues.stable(key);
        }
        int length = in.readInt();
        byte[] payload = new byte[length];
        in.readFixed(payload);
        return new HourRows.Row(payload, key, time, idHash, bucket, seq);
    }
}
