package io.sluice.features.training;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

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
                AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                        .withConf(new PlainParquetConfiguration())
                        .withDataModel(GenericData.get())
                        .withSchema(schema)
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
}
