package io.sluice.features.training;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Writes a training set as one Parquet file: the spine's columns unchanged, then {@code
 * <view>__<feature>} in request order in each feature's declared type, then (if asked) {@code
 * <view>__<feature>__status}.
 */
final class TrainingSetWriter {

    private TrainingSetWriter() {}

    /** The output schema: the spine's columns, then {@code <view>__<feature>} in request order. */
    static Schema schema(Spine spine, List<FeatureRefs.Resolved> features, boolean statusColumns) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : spine.schema().getFields()) {
            fields.add(new Schema.Field(f.name(), f.schema(), f.doc(), f.defaultVal()));
        }
        List<String> names = new ArrayList<>();
        for (FeatureRefs.Resolved r : features) {
            FeatureRef ref = r.ref();
            FeatureDef def = r.feature();
            String name = ref.view() + "__" + ref.feature();
            if (spine.schema().getField(name) != null) {
                throw new IllegalArgumentException(
                        "--spine: its column '" + name + "' would clash with feature " + ref);
            }
            names.add(name);
            fields.add(
                    new Schema.Field(
                            name,
                            Schema.createUnion(Schema.create(Schema.Type.NULL), def.valueSchema()),
                            def.agg().name().toLowerCase() + " at the row's time",
                            JsonProperties.NULL_VALUE));
        }
        if (statusColumns) {
            for (String name : names) {
                fields.add(
                        new Schema.Field(
                                name + "__status",
                                Schema.create(Schema.Type.STRING),
                                "OK, or why the value is null"));
            }
        }
        return Schema.createRecord("training_set", null, "io.sluice.training", false, fields);
    }

    /** Writes the plan's rows with their computed values to {@code file}, replacing it. */
    static void write(
            Spine spine,
            TrainingPlan plan,
            PointInTime.Computed computed,
            boolean statusColumns,
            Path file)
            throws IOException {
        Schema schema = schema(spine, plan.features, statusColumns);
        int spineColumns = spine.schema().getFields().size();
        int features = plan.features.size();
        try (ParquetWriter<GenericRecord> writer =
                new Builder(new LocalOutputFile(file), schema)
                        .withConf(new PlainParquetConfiguration())
                        .withCompressionCodec(CompressionCodecName.ZSTD)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .build()) {
            for (int i = 0; i < plan.rows.length; i++) {
                GenericRecord in = spine.rows().get(plan.rows[i]);
                GenericData.Record row = new GenericData.Record(schema);
                for (int c = 0; c < spineColumns; c++) {
                    row.put(c, in.get(c));
                }
                for (int f = 0; f < features; f++) {
                    row.put(spineColumns + f, computed.values[i][f]);
                    if (statusColumns) {
                        row.put(spineColumns + features + f, computed.status[i][f].name());
                    }
                }
                writer.write(row);
            }
        }
    }

    /**
     * The Parquet schema of {@code schema} as parquet-avro converts it, but with {@code
     * TIMESTAMP(NANOS)} for its {@code timestamp-nanos} and {@code local-timestamp-nanos} columns,
     * which parquet-avro (1.18) writes as plain INT64: a spine's nanosecond time column is written
     * back as it was read ({@link Spine#withNanos}).
     */
    static MessageType parquetSchema(Schema schema) {
        MessageType converted =
                new AvroSchemaConverter(new PlainParquetConfiguration()).convert(schema);
        List<Type> fields = new ArrayList<>();
        for (int i = 0; i < schema.getFields().size(); i++) {
            Type type = converted.getType(i);
            LogicalType logical =
                    Spine.nonNull(schema.getFields().get(i).schema()).getLogicalType();
            boolean utc = logical instanceof LogicalTypes.TimestampNanos;
            if (utc || logical instanceof LogicalTypes.LocalTimestampNanos) {
                type =
                        Types.primitive(PrimitiveType.PrimitiveTypeName.INT64, type.getRepetition())
                                .as(
                                        LogicalTypeAnnotation.timestampType(
                                                utc, LogicalTypeAnnotation.TimeUnit.NANOS))
                                .named(type.getName());
            }
            fields.add(type);
        }
        return new MessageType(converted.getName(), fields);
    }

    /**
     * An Avro Parquet writer of generic records to a given Parquet schema ({@link #parquetSchema}).
     */
    private static final class Builder extends ParquetWriter.Builder<GenericRecord, Builder> {
        private final Schema schema;
        private final MessageType parquet;

        Builder(OutputFile file, Schema schema) {
            super(file);
            this.schema = schema;
            this.parquet = parquetSchema(schema);
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<GenericRecord> getWriteSupport(
                org.apache.hadoop.conf.Configuration conf) {
            return new AvroWriteSupport<>(parquet, schema, GenericData.get());
        }

        @Override
        protected WriteSupport<GenericRecord> getWriteSupport(ParquetConfiguration conf) {
            return new AvroWriteSupport<>(parquet, schema, GenericData.get());
        }
    }
}
