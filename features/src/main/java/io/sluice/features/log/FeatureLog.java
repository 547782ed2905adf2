package io.sluice.features.log;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.ViewDef;
import io.sluice.lake.HourPartitioner;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.formats.avro.typeutils.GenericRecordAvroTypeInfo;
import org.apache.flink.formats.parquet.ParquetWriterFactory;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.util.OutputTag;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;

/**
 * The offline feature log: one row per (entity, fine tile) once the watermark has passed the tile's
 * end, and a newer row (a greater {@code version}) whenever a late event or a retraction changes a
 * logged tile. A row holds each feature's aggregate over that tile alone. Written as Parquet under
 * {@code features/<view>/dt=/hr=/} (by tile start) through Flink's file sink, exactly once.
 */
public final class FeatureLog {

    private FeatureLog() {}

    /** The log row schema of a view. */
    public static Schema schema(ViewDef view) {
        List<Schema.Field> fields = new ArrayList<>();
        fields.add(new Schema.Field("entity", Schema.create(Schema.Type.STRING)));
        fields.add(
                new Schema.Field(
                        "tile_start",
                        LogicalTypes.timestampMicros()
                                .addToSchema(Schema.create(Schema.Type.LONG))));
        fields.add(
                new Schema.Field("events", Schema.create(Schema.Type.LONG), "Events in the tile."));
        fields.add(
                new Schema.Field(
                        "version",
                        Schema.create(Schema.Type.LONG),
                        "The tile's modification count (events added and removed): of several"
                                + " rows of one tile, the newest has the greatest."));
        for (FeatureDef f : view.features()) {
            Schema type =
                    Schema.create(
                            switch (f.type()) {
                                case INT -> Schema.Type.INT;
                                case LONG -> Schema.Type.LONG;
                                case FLOAT -> Schema.Type.FLOAT;
                                case DOUBLE -> Schema.Type.DOUBLE;
                                case STRING -> Schema.Type.STRING;
                            });
            fields.add(
                    new Schema.Field(
                            f.name(),
                            Schema.createUnion(Schema.create(Schema.Type.NULL), type),
                            f.agg().name().toLowerCase() + " over the tile",
                            JsonProperties.NULL_VALUE));
        }
        return Schema.createRecord(
                view.name() + "_tiles",
                "Feature log of view " + view.name(),
                "io.sluice.features.log",
                false,
                fields);
    }

    /** The side output that carries a view's log rows. */
    public static OutputTag<GenericRecord> tag(ViewDef view) {
        return new OutputTag<>(
                "feature-log-" + view.name(), new GenericRecordAvroTypeInfo(schema(view)));
    }

    /** The row of one tile that has only grown: its version is its size. */
    public static GenericRecord row(Schema schema, ViewDef view, String entity, Tile tile) {
        return row(schema, view, entity, tile, tile.size());
    }

    /** The row of one tile at {@code version}, its modification count. */
    public static GenericRecord row(
            Schema schema, ViewDef view, String entity, Tile tile, long version) {
        GenericData.Record row = new GenericData.Record(schema);
        row.put("entity", entity);
        row.put("tile_start", tile.start() * 1000);
        row.put("events", (long) tile.size());
        row.put("version", version);
        for (FeatureDef f : view.features()) {
            FeatureValue v = tile.partial(f).value(f);
            row.put(f.name(), v.value());
        }
        return row;
    }

    /**
     * A part file's Parquet writer: parquet-avro's, with flink-parquet's {@code AvroParquetWriters}
     * settings (the schema, the generic data model, parquet-java's defaults otherwise), but without
     * Hadoop: a writer built without a {@code ParquetConfiguration} parses Hadoop's {@code
     * core-default.xml} for every part file.
     */
    private static org.apache.flink.formats.parquet.ParquetBuilder<GenericRecord> writer(
            Schema schema) {
        String json = schema.toString();
        return out ->
                AvroParquetWriter.<GenericRecord>builder(out)
                        .withConf(new PlainParquetConfiguration())
                        .withSchema(new Schema.Parser().parse(json))
                        .withDataModel(GenericData.get())
                        .build();
    }

    /** Flink's file sink writing the rows as Parquet under {@code root/dt=/hr=/}. */
    public static FileSink<GenericRecord> sink(String root, ViewDef view) {
        return FileSink.forBulkFormat(
                        new Path(root), new ParquetWriterFactory<>(writer(schema(view))))
                .withBucketAssigner(new ByTileHour())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(
                        OutputFileConfig.builder()
                                .withPartPrefix("part")
                                .withPartSuffix(".parquet")
                                .build())
                .build();
    }

    /** {@code dt=YYYY-MM-DD/hr=HH} of the row's tile start. */
    static final class ByTileHour implements BucketAssigner<GenericRecord, String> {
        @Override
        public String getBucketId(GenericRecord row, Context context) {
            return HourPartitioner.partition((Long) row.get("tile_start") / 1000);
        }

        @Override
        public SimpleVersionedSerializer<String> getSerializer() {
            return SimpleVersionedStringSerializer.INSTANCE;
        }
    }
}
