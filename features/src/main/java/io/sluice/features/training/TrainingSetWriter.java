package io.sluice.features.training;

import io.sluice.config.Nullable;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.ParquetFiles;
import java.io.IOException;
import java.net.URI;
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
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Writes a training set as Parquet: the spine's columns unchanged, then {@code <view>__<feature>}
 * in request order in each feature's declared type, then (if asked) {@code
 * <view>__<feature>__status}; as part files of ranges of the spine, or one file of them all.
 */
final class TrainingSetWriter {

    private TrainingSetWriter() {}

    /** The output schema: the spine's columns, then {@code <view>__<feature>} in request order. */
    static Schema schema(Schema spine, List<FeatureRefs.Resolved> features, boolean statusColumns) {
        return schema(spine, features, statusColumns, null);
    }

    /**
     * The rows as the training-set job carries them: {@link #schema} with status columns, then a
     * long column {@code rowColumn}. The output schema is a prefix of it, so a writer of the output
     * schema writes these rows as they are (Avro writes a record's fields by position).
     */
    static Schema internalSchema(
            Schema spine, List<FeatureRefs.Resolved> features, String rowColumn) {
        return schema(spine, features, true, rowColumn);
    }

    private static Schema schema(
            Schema spine,
            List<FeatureRefs.Resolved> features,
            boolean statusColumns,
            String rowColumn) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : spine.getFields()) {
            fields.add(new Schema.Field(f.name(), f.schema(), f.doc(), f.defaultVal()));
        }
        List<String> names = new ArrayList<>();
        for (FeatureRefs.Resolved r : features) {
            FeatureRef ref = r.ref();
            FeatureDef def = r.feature();
            String name = ref.view() + "__" + ref.feature();
            if (spine.getField(name) != null) {
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
                // In the job's rows a status is null until the row's pass sets it.
                fields.add(
                        rowColumn == null
                                ? new Schema.Field(
                                        name + "__status",
                                        Schema.create(Schema.Type.STRING),
                                        "OK, or why the value is null")
                                : new Schema.Field(
                                        name + "__status",
                                        Schema.createUnion(
                                                Schema.create(Schema.Type.NULL),
                                                Schema.create(Schema.Type.STRING)),
                                        null,
                                        JsonProperties.NULL_VALUE));
            }
        }
        if (rowColumn != null) {
            if (spine.getField(rowColumn) != null) {
                throw new IllegalArgumentException(
                        "--spine: its column '"
                                + rowColumn
                                + "' is a name Sluice keeps for itself");
            }
            fields.add(new Schema.Field(rowColumn, Schema.create(Schema.Type.LONG)));
        }
        return Schema.createRecord("training_set", null, "io.sluice.training", false, fields);
    }

    /** A Parquet writer of rows of {@code schema} to {@code file}, replacing it. */
    static ParquetWriter<GenericRecord> open(Path file, Schema schema) throws IOException {
        return new Builder(new LocalOutputFile(file), schema)
                .withConf(new PlainParquetConfiguration())
                .withCompressionCodec(CompressionCodecName.ZSTD)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                // A task buffers a row group on its heap; 32 MB keeps that small beside the
                // rows being computed, and is still a large group for readers.
                .withRowGroupSize(32L * 1024 * 1024)
                .build();
    }

    /** Writes rows into a part file. */
    @FunctionalInterface
    interface Rows {
        void writeTo(ParquetWriter<GenericRecord> writer) throws IOException;
    }

    /**
     * Writes a part file {@code file} of the lake, replacing it, with what {@code rows} writes: on
     * an object store all of it or nothing ({@link LakeFiles#writeLocally}).
     */
    static void write(URI file, Schema schema, Rows rows) throws IOException {
        LakeFiles.writeLocally(
                file,
                local -> {
                    try (ParquetWriter<GenericRecord> writer = open(local, schema)) {
                        rows.writeTo(writer);
                    }
                });
    }

    /**
     * Writes {@code parts}, files of the lake written by {@link #write} of one schema (at least
     * one), into one local file {@code out} in their order. Their row groups are copied as they
     * are, not decoded (parquet-java's {@link ParquetFileWriter#appendFile}), so this costs a copy
     * of the bytes.
     */
    static void concat(List<URI> parts, Path out) throws IOException {
        FileMetaData first;
        try (ParquetFileReader reader =
                ParquetFiles.openParquet(ParquetFiles.parquetInput(parts.get(0)))) {
            first = reader.getFileMetaData();
        }
        ParquetFileWriter writer =
                new ParquetFileWriter(
                        new LocalOutputFile(out),
                        first.getSchema(),
                        ParquetFileWriter.Mode.OVERWRITE,
                        ParquetWriter.DEFAULT_BLOCK_SIZE,
                        ParquetWriter.MAX_PADDING_SIZE_DEFAULT);
        writer.start();
        for (URI part : parts) {
            try (ParquetFileReader reader =
                    ParquetFiles.openParquet(ParquetFiles.parquetInput(part))) {
                reader.appendTo(writer);
            }
        }
        writer.end(first.getKeyValueMetaData());
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
                    Nullable.valueType(schema.getFields().get(i).schema()).getLogicalType();
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
