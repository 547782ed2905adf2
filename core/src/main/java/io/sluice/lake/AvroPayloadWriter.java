package io.sluice.lake;

import io.sluice.event.Event;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;

/**
 * Writes events into an Avro object container file for Flink's file sink. Events already carry
 * their record Avro-encoded in the table's schema, so blocks are appended as they are ({@link
 * DataFileWriter#appendEncoded}) instead of being decoded and encoded again, which is what Flink's
 * stock {@code AvroWriters} would have to do.
 */
public final class AvroPayloadWriter implements BulkWriter<Event> {

    /** Avro container codec of landing files. */
    public static final String CODEC = "snappy";

    private final DataFileWriter<GenericRecord> writer;

    private AvroPayloadWriter(DataFileWriter<GenericRecord> writer) {
        this.writer = writer;
    }

    @Override
    public void addElement(Event event) throws IOException {
        writer.appendEncoded(ByteBuffer.wrap(event.payload));
    }

    @Override
    public void flush() throws IOException {
        writer.flush();
    }

    @Override
    public void finish() throws IOException {
        // Closing the Avro writer would close the stream, which the file sink owns.
        writer.flush();
    }

    /** Creates writers for one table's schema; the codec is {@code snappy} or {@code deflate}. */
    public static final class Factory implements BulkWriter.Factory<Event> {

        private static final long serialVersionUID = 1L;

        private final String schemaJson;
        private final String codec;

        public Factory(Schema schema, String codec) {
            this.schemaJson = schema.toString();
            this.codec = codec;
            CodecFactory.fromString(codec); // fail fast on a bad codec name
        }

        @Override
        public BulkWriter<Event> create(FSDataOutputStream out) throws IOException {
            Schema schema = new Schema.Parser().parse(schemaJson);
            DataFileWriter<GenericRecord> writer =
                    new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema));
            writer.setCodec(CodecFactory.fromString(codec));
            writer.setFlushOnEveryBlock(false);
            writer.create(schema, out);
            return new AvroPayloadWriter(writer);
        }
    }
}
