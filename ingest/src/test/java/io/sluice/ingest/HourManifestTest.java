package io.sluice.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.event.Event;
import io.sluice.schemas.PageView;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HourManifestTest {

    static final long HOUR = Instant.parse("2026-11-21T05:00:00Z").toEpochMilli();

    @TempDir Path dir;

    private static byte[] pageView(String id) throws Exception {
        GenericRecord r = new GenericData.Record(PageView.getClassSchema());
        r.put("event_id", id);
        r.put("event_time", HOUR + 1);
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

    private void writeFile(String name, int rows) throws Exception {
        org.apache.flink.core.fs.Path path =
                new org.apache.flink.core.fs.Path(dir.resolve(name).toUri());
        try (FSDataOutputStream out =
                path.getFileSystem().create(path, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<Event> writer =
                    new AvroPayloadWriter.Factory(PageView.getClassSchema(), "snappy").create(out);
            for (int i = 0; i < rows; i++) {
                writer.addElement(new Event(name + i, "u", HOUR + 1, pageView(name + i)));
            }
            writer.finish();
        }
    }

    @Test
    void shouldWriteAvroThatAvrosOwnReaderReads() throws Exception {
        writeFile("part-a-0.avro", 3);

        try (DataFileReader<GenericRecord> reader =
                new DataFileReader<>(
                        dir.resolve("part-a-0.avro").toFile(), new GenericDatumReader<>())) {
            assertThat(reader.getMetaString("avro.codec")).isEqualTo("snappy");
            assertThat(reader.iterator())
                    .toIterable()
                    .extracting(r -> r.get("event_id").toString())
                    .containsExactly("part-a-0.avro0", "part-a-0.avro1", "part-a-0.avro2");
        }
    }

    @Test
    void shouldListCommittedFilesWithRowCountsAndSkipHiddenOnes() throws Exception {
        writeFile("part-a-0.avro", 3);
        writeFile("part-b-0.avro", 5);
        Files.writeString(dir.resolve(".part-c-0.avro.inprogress.123"), "not yet committed");

        long rows =
                HourManifest.write(
                        new org.apache.flink.core.fs.Path(dir.toUri()),
                        "page_views",
                        PageView.getClassSchema(),
                        HOUR,
                        HOUR + 7_200_000,
                        Duration.ofMinutes(15),
                        9);

        assertThat(rows).isEqualTo(8);
        var manifest = HourManifest.read(new org.apache.flink.core.fs.Path(dir.toUri()));
        assertThat(manifest.get("partition").asText()).isEqualTo("dt=2026-11-21/hr=05");
        assertThat(manifest.get("rows").asLong()).isEqualTo(8);
        assertThat(manifest.get("files"))
                .extracting(f -> f.get("name").asText() + ":" + f.get("rows").asLong())
                .containsExactly("part-a-0.avro:3", "part-b-0.avro:5");
        assertThat(manifest.get("schema").get("name").asText())
                .isEqualTo("io.sluice.schemas.PageView");
        assertThat(manifest.get("watermark").asText()).isEqualTo("2026-11-21T07:00:00Z");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("no staging file left behind")
                    .containsExactlyInAnyOrder(
                            "part-a-0.avro",
                            "part-b-0.avro",
                            ".part-c-0.avro.inprogress.123",
                            "_SUCCESS");
        }
    }
}
