package io.sluice.testing;

import io.sluice.config.TableConfig;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/** Changes to a landing hour as the ingest job makes them, for tests of compaction. */
public final class LandingEdits {

    private LandingEdits() {}

    /** A late purchase re-opens {@code hour}: a new file and a re-published manifest. */
    public static void addLatePurchase(Path root, TableConfig purchases, String hour, String id)
            throws IOException {
        Schema schema = purchases.schema();
        GenericRecord r =
                purchase(
                        schema,
                        id,
                        HourPartitioner.parse(hour) + 1_000,
                        "user-late-" + id,
                        2.5f,
                        "WEB",
                        "DE");
        writeAvro(
                hourDir(root, purchases, hour).resolve("part-" + id + ".avro"), schema, List.of(r));
        republish(root, purchases, hour);
    }

    /**
     * A purchase record of {@code schema} (the current Purchase schema or a released one, which may
     * lack later fields), with fixed values for the fields tests do not look at.
     */
    public static GenericRecord purchase(
            Schema schema,
            String id,
            long eventTime,
            String user,
            float price,
            String device,
            String country) {
        GenericData.Record r = new GenericData.Record(schema);
        r.put("event_id", id);
        r.put("event_time", eventTime);
        r.put("user_id", user);
        r.put("session_id", "s");
        r.put("order_id", "o");
        r.put("item_id", "i");
        r.put("category", "c");
        r.put("price", price);
        r.put("quantity", 1);
        r.put("payment_method", "card");
        r.put("device", new GenericData.EnumSymbol(schema.getField("device").schema(), device));
        r.put("country", country);
        return r;
    }

    /** Writes an Avro container file with the given writer schema. */
    public static void writeAvro(Path file, Schema schema, List<GenericRecord> rows)
            throws IOException {
        try (DataFileWriter<GenericRecord> w =
                new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
            w.create(schema, file.toFile());
            for (GenericRecord r : rows) {
                w.append(r);
            }
        }
    }

    /** Publishes {@code hour}'s manifest again over its current files. */
    public static void republish(Path root, TableConfig table, String hour) throws IOException {
        long start = HourPartitioner.parse(hour);
        HourManifest.write(
                new org.apache.flink.core.fs.Path(hourDir(root, table, hour).toUri()),
                table.name(),
                table.schema(),
                start,
                start + 2 * HourPartitioner.hourMillis(),
                table.allowedLateness(),
                7);
    }

    public static Path hourDir(Path root, TableConfig table, String hour) {
        return root.resolve("raw").resolve(table.name()).resolve(hour);
    }
}
