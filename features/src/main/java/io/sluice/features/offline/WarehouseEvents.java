package io.sluice.features.offline;

import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.ViewDef;
import io.sluice.lake.ParquetFiles;
import io.sluice.lake.WarehouseSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroReadSupport;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Binary;

/**
 * Entities' accepted events read back from the warehouse: an entity's rows of an hour are in that
 * hour's file of the entity's bucket (the Hive bucketing contract), which is read with a Parquet
 * filter on the key so row groups and pages without it are skipped (statistics and bloom filters).
 */
public final class WarehouseEvents {

    private WarehouseEvents() {}

    /** What divides {@code table}'s warehouse event time into epoch millis (micros: 1000). */
    private static long toMillis(TableConfig table, Schema warehouse) {
        return warehouse.getField(table.eventTime()).schema().getLogicalType()
                        instanceof LogicalTypes.TimestampMicros
                ? 1000L
                : 1L;
    }

    /** Receives the events of a scan. */
    public interface EventSink {
        void accept(String entity, EventEntry event);
    }

    /**
     * Every event of bucket file {@code file} of {@code table} for the given entities, reading only
     * the key, id, time and the columns {@code view} aggregates; a Parquet filter on the key skips
     * row groups and pages without any of them, and a set lookup drops other entities' rows. The
     * file is read wherever it is ({@link ParquetFiles#parquetInput}).
     *
     * @return the rows read
     */
    public static long scan(
            TableConfig table, InputFile file, ViewDef view, Set<String> entities, EventSink sink)
            throws IOException {
        Schema full = WarehouseSchema.of(table.schema()).schema();
        long toMillis = toMillis(table, full);
        List<Schema.Field> fields = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        names.add(table.key());
        names.add(table.id());
        names.add(table.eventTime());
        names.addAll(view.fields());
        for (String name : names) {
            Schema.Field f = full.getField(name);
            fields.add(new Schema.Field(f.name(), f.schema(), f.doc(), f.defaultVal()));
        }
        Schema projection =
                Schema.createRecord(
                        full.getName(), full.getDoc(), full.getNamespace(), false, fields);
        PlainParquetConfiguration conf = new PlainParquetConfiguration();
        conf.set(AvroReadSupport.AVRO_REQUESTED_PROJECTION, projection.toString());
        long rows = 0;
        try (ParquetReader<GenericRecord> reader =
                AvroParquetReader.<GenericRecord>builder(file, conf)
                        .withDataModel(GenericData.get())
                        .withFilter(keyIn(full, table, entities))
                        // Row groups and pages without the keys are skipped (statistics, bloom
                        // filter, page index), but not row by row: parquet-java's record-level
                        // IN walks the whole key set for every row, which cost most of a
                        // training set's time; the HashSet check below does that part.
                        .useRecordFilter(false)
                        .build()) {
            GenericRecord r;
            while ((r = reader.read()) != null) {
                rows++;
                String entity = String.valueOf(r.get(table.key()));
                if (entities.contains(entity)) {
                    long ts = Math.floorDiv((Long) r.get(table.eventTime()), toMillis);
                    sink.accept(entity, view.entry(r, String.valueOf(r.get(table.id())), ts));
                }
            }
        }
        return rows;
    }

    /** A filter keeping rows whose key is one of {@code entities} (string keys; else none). */
    private static FilterCompat.Filter keyIn(
            Schema warehouse, TableConfig table, Set<String> entities) {
        Schema key = warehouse.getField(table.key()).schema();
        if (key.getType() != Schema.Type.STRING || entities.isEmpty()) {
            return FilterCompat.NOOP;
        }
        Set<Binary> keys = new HashSet<>();
        entities.forEach(e -> keys.add(Binary.fromString(e)));
        return FilterCompat.get(FilterApi.in(FilterApi.binaryColumn(table.key()), keys));
    }
}
