package io.sluice.lake;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.schemas.PageView;
import io.sluice.testing.AvroFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HourManifestTest {

    static final long HOUR = Instant.parse("2026-11-21T05:00:00Z").toEpochMilli();

    @TempDir Path dir;

    private org.apache.flink.core.fs.Path hourDir() {
        return new org.apache.flink.core.fs.Path(dir.toUri());
    }

    @Test
    void shouldWriteAvroThatAvrosOwnReaderReads() throws Exception {
        AvroFiles.writePageViews(dir.resolve("part-a-0.avro"), 3, HOUR + 1);

        try (DataFileReader<GenericRecord> reader =
                new DataFileReader<>(
                        dir.resolve("part-a-0.avro").toFile(), new GenericDatumReader<>())) {
            assertThat(reader.getMetaString("avro.codec")).isEqualTo("snappy");
            assertThat(reader.iterator())
                    .toIterable()
                    .extracting(r -> r.get("event_id").toString())
                    .containsExactly("part-a-0.avro-0", "part-a-0.avro-1", "part-a-0.avro-2");
        }
    }

    @Test
    void shouldListCommittedFilesWithRowCountsAndSkipHiddenOnes() throws Exception {
        AvroFiles.writePageViews(dir.resolve("part-a-0.avro"), 3, HOUR + 1);
        AvroFiles.writePageViews(dir.resolve("part-b-0.avro"), 5, HOUR + 1);
        Files.writeString(dir.resolve(".part-c-0.avro.inprogress.123"), "not yet committed");

        long rows =
                HourManifest.write(
                        hourDir(),
                        "page_views",
                        PageView.getClassSchema(),
                        HOUR,
                        HOUR + 7_200_000,
                        Duration.ofMinutes(15),
                        9);

        assertThat(rows).isEqualTo(8);
        var manifest = HourManifest.read(hourDir());
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
