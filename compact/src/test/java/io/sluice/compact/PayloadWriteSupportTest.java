package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lake.WarehouseSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bucket writer's files, written from rows' Avro bytes, against parquet-avro's own writer given
 * the same rows decoded and converted to the warehouse schema, with the same options: the same
 * bytes.
 */
class PayloadWriteSupportTest {

    @TempDir Path dir;

    private static final Schema SYMBOLS =
            SchemaBuilder.enumeration("Device").symbols("WEB", "IOS", "ANDROID");

    /** Every flat type, required and nullable (null first or last), with logical types. */
    private static final Schema FLAT =
            SchemaBuilder.record("Flat")
                    .namespace("io.sluice.test")
                    .fields()
                    .requiredString("event_id")
                    .requiredString("user_id")
                    .name("event_time")
                    .type(
                            LogicalTypes.timestampMillis()
                                    .addToSchema(Schema.create(Schema.Type.LONG)))
                    .noDefault()
                    .optionalString("referrer")
                    .name("note")
                    .type()
                    .unionOf()
                    .stringType()
                    .and()
                    .nullType()
                    .endUnion()
                    .stringDefault("")
                    .requiredInt("quantity")
                    .optionalInt("rating")
                    .requiredLong("counter")
                    .optionalLong("visits")
                    .requiredFloat("score")
                    .optionalDouble("price")
                    .requiredBoolean("first")
                    .optionalBoolean("gift")
                    .name("device")
                    .type(SYMBOLS)
                    .noDefault()
                    .name("channel")
                    .type()
                    .optional()
                    .type(SYMBOLS)
                    .requiredBytes("blob")
                    .optionalBytes("maybe_blob")
                    .name("code")
                    .type(SchemaBuilder.fixed("Code").size(4))
                    .noDefault()
                    .name("day")
                    .type(LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT)))
                    .noDefault()
                    .name("seen_at")
                    .type(
                            LogicalTypes.timestampMicros()
                                    .addToSchema(Schema.create(Schema.Type.LONG)))
                    .noDefault()
                    .name("paid_at")
                    .type()
                    .optional()
                    .type(
                            LogicalTypes.timestampMillis()
                                    .addToSchema(Schema.create(Schema.Type.LONG)))
                    .name("amount")
                    .type(LogicalTypes.decimal(9, 2).addToSchema(Schema.create(Schema.Type.BYTES)))
                    .noDefault()
                    .endRecord();

    @Test
    void flatRowsAreWrittenFromTheirBytesAsParquetAvroWritesTheirRecords() throws IOException {
        List<GenericData.Record> rows = flatRows(5_000, 7);

        assertThat(written(FLAT, rows, true)).isEqualTo(reference(FLAT, rows));
    }

    @Test
    void aTableWithNestedValuesTakesParquetAvrosPath() throws IOException {
        Schema nested =
                SchemaBuilder.record("Nested")
                        .fields()
                        .requiredString("event_id")
                        .requiredString("user_id")
                        .requiredLong("event_time")
                        .name("tags")
                        .type()
                        .array()
                        .items()
                        .stringType()
                        .noDefault()
                        .name("either")
                        .type()
                        .unionOf()
                        .nullType()
                        .and()
                        .stringType()
                        .and()
                        .longType()
                        .endUnion()
                        .nullDefault()
                        .endRecord();
        SplittableRandom random = new SplittableRandom(3);
        List<GenericData.Record> rows = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            GenericData.Record r = new GenericData.Record(nested);
            r.put("event_id", "e" + i);
            r.put("user_id", "u" + random.nextInt(40));
            r.put("event_time", random.nextLong());
            r.put("tags", List.of("t" + random.nextInt(5), "x"));
            int pick = random.nextInt(3);
            r.put("either", pick == 0 ? null : pick == 1 ? "s" + i : (Object) (long) i);
            rows.add(r);
        }

        assertThat(written(nested, rows, false)).isEqualTo(reference(nested, rows));
    }

    private static List<GenericData.Record> flatRows(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<GenericData.Record> rows = new ArrayList<>();
        String[] texts = {"", "a", "ünïcødé ✓", "𝄞 music", "plain ascii text"};
        for (int i = 0; i < count; i++) {
            GenericData.Record r = new GenericData.Record(FLAT);
            r.put("event_id", "evt-" + i);
            r.put("user_id", "user-" + random.nextInt(300));
            r.put("event_time", 1_700_000_000_000L + random.nextLong(3_600_000L));
            r.put("referrer", random.nextBoolean() ? null : texts[random.nextInt(texts.length)]);
            r.put("note", random.nextInt(4) == 0 ? null : "note " + random.nextInt(1000));
            r.put("quantity", random.nextInt() >> random.nextInt(32));
            r.put("rating", random.nextBoolean() ? null : random.nextInt(-5, 6));
            long[] extremes = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1};
            r.put(
                    "counter",
                    random.nextInt(10) == 0 ? extremes[random.nextInt(4)] : random.nextLong());
            r.put("visits", random.nextBoolean() ? null : random.nextLong(1 << 20));
            float[] floats = {Float.NaN, -0.0f, Float.MAX_VALUE, Float.NEGATIVE_INFINITY};
            r.put(
                    "score",
                    random.nextInt(10) == 0
                            ? floats[random.nextInt(4)]
                            : (float) random.nextDouble(-1e6, 1e6));
            r.put("price", random.nextBoolean() ? null : random.nextDouble() * 500);
            r.put("first", random.nextBoolean());
            r.put("gift", random.nextInt(3) == 0 ? null : random.nextBoolean());
            r.put(
                    "device",
                    new GenericData.EnumSymbol(SYMBOLS, SYMBOLS.getEnumSymbols().get(i % 3)));
            r.put(
                    "channel",
                    random.nextBoolean()
                            ? null
                            : new GenericData.EnumSymbol(
                                    SYMBOLS, SYMBOLS.getEnumSymbols().get(random.nextInt(3))));
            byte[] blob = new byte[random.nextInt(40)];
            for (int b = 0; b < blob.length; b++) {
                blob[b] = (byte) random.nextInt(256);
            }
            r.put("blob", ByteBuffer.wrap(blob));
            r.put(
                    "maybe_blob",
                    random.nextBoolean()
                            ? null
                            : ByteBuffer.wrap(("m" + i).getBytes(StandardCharsets.UTF_8)));
            byte[] code = new byte[4];
            for (int b = 0; b < 4; b++) {
                code[b] = (byte) random.nextInt(256);
            }
            r.put("code", new GenericData.Fixed(FLAT.getField("code").schema(), code));
            r.put("day", random.nextInt(-20_000, 40_000));
            r.put("seen_at", random.nextLong());
            r.put(
                    "paid_at",
                    random.nextBoolean() ? null : 1_700_000_000_000L + random.nextLong(1 << 30));
            r.put("amount", ByteBuffer.wrap(new byte[] {(byte) random.nextInt(256), 1, 2}));
            rows.add(r);
        }
        return rows;
    }

    /** The rows through {@link BucketFileWriter}, given their Avro bytes. */
    private byte[] written(Schema table, List<GenericData.Record> rows, boolean direct)
            throws IOException {
        Path file = dir.resolve("written.parquet");
        PayloadWriteSupport support = new PayloadWriteSupport(table, WarehouseSchema.of(table));
        try (ParquetWriter<byte[]> writer =
                BucketFileWriter.open(file, support, "user_id", "event_id", "event_time", 300)) {
            for (GenericData.Record row : rows) {
                writer.write(encode(table, row));
            }
        }
        assertThat(support.direct()).as("rows written from their bytes").isEqualTo(direct);
        return Files.readAllBytes(file);
    }

    /** The rows through parquet-avro's writer, decoded and converted, with the same options. */
    private byte[] reference(Schema table, List<GenericData.Record> rows) throws IOException {
        Path file = dir.resolve("reference.parquet");
        WarehouseSchema warehouse = WarehouseSchema.of(table);
        try (ParquetWriter<GenericRecord> writer =
                BucketFileWriter.contract(
                                AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                                        .withSchema(warehouse.schema())
                                        .withDataModel(GenericData.get()),
                                "user_id",
                                "event_id",
                                "event_time",
                                300)
                        .build()) {
            for (GenericData.Record row : rows) {
                GenericData.Record copy = new GenericData.Record(row, true);
                warehouse.convert(copy);
                writer.write(copy);
            }
        }
        return Files.readAllBytes(file);
    }

    private static byte[] encode(Schema schema, GenericData.Record row) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericData.Record>(schema).write(row, encoder);
        encoder.flush();
        return bytes.toByteArray();
    }
}
