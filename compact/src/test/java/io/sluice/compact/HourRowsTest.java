package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.HiveBucketing;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestConfigs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HourRows#read}: a row holds its encoding in the table's current schema and the values it
 * sorts and buckets by, whether its file was written in that schema (the row's bytes are copied
 * from the file) or in an older one (the row is decoded into the current schema and encoded again).
 */
class HourRowsTest {

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");
    private static final String HOUR = "dt=2026-11-21/hr=03";

    @TempDir Path root;

    private TableConfig purchases;
    private HourRows hourRows;

    @BeforeEach
    void landAnHour() throws IOException {
        purchases = TestConfigs.shop(root, "localhost:1", "t").table("purchases").orElseThrow();
        hourRows = new HourRows(purchases);
        LandingHours.write(
                root,
                purchases,
                GeneratorOptions.defaults(2_000, 5)
                        .withStart(START)
                        .withSpan(Duration.ofHours(1))
                        .withRates(0.05, 0, 0),
                2,
                true);
    }

    @Test
    void shouldKeepTheBytesOfAFileInTheCurrentSchema() throws IOException {
        List<Path> files = landingFiles();
        assertThat(files).isNotEmpty();
        long rows = 0;
        for (int i = 0; i < files.size(); i++) {
            List<GenericRecord> written = records(files.get(i), purchases.schema());
            List<HourRows.Row> read = hourRows.read(files.get(i).toUri(), i, written.size());
            assertThat(read).hasSameSizeAs(written);
            for (int r = 0; r < written.size(); r++) {
                assertRow(read.get(r), written.get(r), i, r);
            }
            rows += read.size();
        }
        assertThat(rows).isGreaterThan(1_000);
    }

    @Test
    void shouldResolveAFileInAnOlderSchemaToTheCurrentOne() throws IOException {
        Schema current = purchases.schema();
        Schema older = withoutField(current, "coupon");
        List<GenericRecord> asWritten = new ArrayList<>();
        List<GenericRecord> expected = new ArrayList<>();
        for (GenericRecord r : records(landingFiles().get(0), current)) {
            GenericData.Record old = new GenericData.Record(older);
            GenericData.Record now = new GenericData.Record(current);
            for (Schema.Field f : current.getFields()) {
                if (older.getField(f.name()) != null) {
                    old.put(f.name(), r.get(f.name()));
                }
                now.put(f.name(), f.name().equals("coupon") ? null : r.get(f.name()));
            }
            asWritten.add(old);
            expected.add(now);
        }
        Path file = LandingEdits.hourDir(root, purchases, HOUR).resolve("part-older.avro");
        LandingEdits.writeAvro(file, older, asWritten);

        List<HourRows.Row> read = hourRows.read(file.toUri(), 7, asWritten.size());

        assertThat(read).hasSameSizeAs(expected);
        assertThat(expected.stream().filter(r -> r.get("coupon") == null)).hasSameSizeAs(expected);
        for (int r = 0; r < expected.size(); r++) {
            assertRow(read.get(r), expected.get(r), 7, r);
        }
    }

    /** The row is {@code record} encoded in the current schema, with its sort values and place. */
    @Test
    void sortingABucketGivesTheComparatorsOrder() throws IOException {
        List<HourRows.Row> rows = new ArrayList<>();
        List<Path> files = landingFiles();
        for (int i = 0; i < files.size(); i++) {
            rows.addAll(
                    hourRows.read(
                            files.get(i).toUri(),
                            i,
                            records(files.get(i), purchases.schema()).size()));
        }
        // Copies of some rows land twice (the generator's duplicate rate): equal key and time.
        HourRows.rankKeys(rows);
        List<HourRows.Row> expected = new ArrayList<>(rows);
        expected.sort(hourRows.order);
        java.util.Collections.shuffle(rows, new java.util.Random(3));
        List<HourRows.Row> packed = new ArrayList<>(rows);
        hourRows.sort(packed);
        assertThat(packed).containsExactlyElementsOf(expected);
        assertThat(expected)
                .as("rows tied on key and time, ordered by id")
                .anySatisfy(
                        r ->
                                assertThat(expected)
                                        .filteredOn(
                                                o -> o != r && o.rank == r.rank && o.time == r.time)
                                        .isNotEmpty());

        // Times too far apart to pack: the rows are sorted by the comparator, to the same order.
        List<HourRows.Row> spread = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            HourRows.Row r = rows.get(i);
            long time = i % 2 == 0 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i;
            HourRows.Row moved = new HourRows.Row(r.payload, r.key, time, r.idHash, 0, r.seq);
            moved.rank = r.rank;
            spread.add(moved);
        }
        List<HourRows.Row> spreadExpected = new ArrayList<>(spread);
        spreadExpected.sort(hourRows.order);
        hourRows.sort(spread);
        assertThat(spread).containsExactlyElementsOf(spreadExpected);
    }

    private void assertRow(HourRows.Row row, GenericRecord record, int fileIndex, int position)
            throws IOException {
        assertThat(row.payload).isEqualTo(encode(record));
        assertThat(decode(row.payload)).isEqualTo(record);
        assertThat(row.key.toString()).isEqualTo(record.get(purchases.key()).toString());
        assertThat(row.time).isEqualTo(record.get(purchases.eventTime()));
        assertThat(row.idHash).isEqualTo(RowValues.hash64(record.get(purchases.id())));
        assertThat(row.bucket)
                .isEqualTo(HiveBucketing.bucket(row.key, purchases.buckets()))
                .isBetween(0, purchases.buckets() - 1);
        assertThat(row.seq).isEqualTo(((long) fileIndex << 40) + position);
    }

    private List<Path> landingFiles() throws IOException {
        try (Stream<Path> files = Files.list(LandingEdits.hourDir(root, purchases, HOUR))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".avro"))
                    .filter(f -> !f.getFileName().toString().startsWith("."))
                    .sorted()
                    .toList();
        }
    }

    private static List<GenericRecord> records(Path file, Schema schema) throws IOException {
        List<GenericRecord> records = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file);
                DataFileStream<GenericRecord> stream =
                        new DataFileStream<>(in, new GenericDatumReader<>(null, schema))) {
            stream.forEach(records::add);
        }
        return records;
    }

    private byte[] encode(GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(purchases.schema()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private GenericRecord decode(byte[] payload) throws IOException {
        return new GenericDatumReader<GenericRecord>(purchases.schema())
                .read(null, DecoderFactory.get().binaryDecoder(payload, null));
    }

    private static Schema withoutField(Schema schema, String name) {
        return Schema.createRecord(
                schema.getName(),
                schema.getDoc(),
                schema.getNamespace(),
                false,
                schema.getFields().stream()
                        .filter(f -> !f.name().equals(name))
                        .map(f -> new Schema.Field(f, f.schema()))
                        .toList());
    }
}
