package io.sluice.catalog;

import io.sluice.config.TableConfig;
import io.sluice.lake.WarehouseSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.types.Types;

/**
 * What the Iceberg table of a warehouse table looks like: the warehouse Parquet files' columns and
 * types ({@link WarehouseSchema}), partitioned by {@code hour(<event_time>)}, sorted by (key, event
 * time, id), with the Hive bucketing recorded in its properties. Engines that know the Hive layout
 * can tell from them that the files are also bucketed; Iceberg itself does not model Hive buckets.
 */
public final class IcebergTableSpec {

    /** Table properties recording the Hive bucketing of the data files. */
    public static final String BUCKET_COLUMN = "sluice.bucketing.column";

    public static final String BUCKET_COUNT = "sluice.bucketing.count";
    public static final String BUCKETING_VERSION = "bucketing_version";

    /** Commits of different hours retry on conflict; enough for every subtask to get through. */
    static final int COMMIT_RETRIES = 50;

    private IcebergTableSpec() {}

    /**
     * The table's schema; ids are assigned again when the catalog creates it. Timestamps are {@code
     * timestamptz}: the warehouse writes them adjusted to UTC, which Iceberg's Avro conversion does
     * not assume.
     */
    public static Schema schema(TableConfig table) {
        Schema converted = AvroSchemaUtil.toIceberg(WarehouseSchema.of(table.schema()).schema());
        List<Types.NestedField> fields = new ArrayList<>();
        for (Types.NestedField field : converted.columns()) {
            fields.add(
                    field.type() instanceof Types.TimestampType
                            ? Types.NestedField.of(
                                    field.fieldId(),
                                    field.isOptional(),
                                    field.name(),
                                    Types.TimestampType.withZone(),
                                    field.doc())
                            : field);
        }
        return new Schema(fields);
    }

    public static PartitionSpec partitionSpec(Schema schema, TableConfig table) {
        return PartitionSpec.builderFor(schema).hour(table.eventTime()).build();
    }

    public static SortOrder sortOrder(Schema schema, TableConfig table) {
        return SortOrder.builderFor(schema)
                .asc(table.key())
                .asc(table.eventTime())
                .asc(table.id())
                .build();
    }

    /** Properties set when the table is created. */
    public static Map<String, String> properties(TableConfig table) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(TableProperties.FORMAT_VERSION, "2");
        props.put(BUCKET_COLUMN, table.key());
        props.put(BUCKET_COUNT, Integer.toString(table.buckets()));
        props.put(BUCKETING_VERSION, "2");
        props.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
        props.put(TableProperties.PARQUET_COMPRESSION, "zstd");
        props.put(TableProperties.COMMIT_NUM_RETRIES, Integer.toString(COMMIT_RETRIES));
        props.put(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "20");
        props.put(TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "2000");
        props.put(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
        props.put(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "20");
        return props;
    }
}
