package io.sluice.testing;

import io.sluice.event.Event;
import io.sluice.lake.AvroPayloadWriter;
import io.sluice.schemas.PageView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;

/** Writes landing files the way the landing sink does, for tests of what reads them. */
public final class AvroFiles {

    private AvroFiles() {}

    /**
     * A page-view landing file of {@code rows} events at {@code eventTime}, ids prefixed by its
     * name.
     */
    public static void writePageViews(Path file, int rows, long eventTime) throws IOException {
        org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(file.toUri());
        try (FSDataOutputStream out =
                path.getFileSystem().create(path, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<Event> writer =
                    new AvroPayloadWriter.Factory(PageView.getClassSchema(), "snappy").create(out);
            for (int i = 0; i < rows; i++) {
                String id = file.getFileName() + "-" + i;
                writer.addElement(new Event(id, "u", eventTime, pageView(id, eventTime)));
            }
            writer.finish();
        }
    }

    private static byte[] pageView(String id, long eventTime) throws IOException {
        GenericRecord r = new GenericData.Record(PageView.getClassSchema());
        r.put("event_id", id);
        r.put("event_time", eventTime);
        r.put("user_id", "u");
        r.put("session_id", "s");
        r.put("page", "/");
        r.put(
                "device",
                new GenericData.EnumSymbol(
                        PageView.getClassSchema().getField("device").schema(), "WEB"));
        r.put("country", "DE");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(PageView.getClassSchema()).write(r, enc);
        enc.flush();
        return out.toByteArray();
    }
}
