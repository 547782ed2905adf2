package io.sluice.features.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;

/** Writes Avro records as a Parquet file with parquet-avro's defaults: the tests' spines. */
public final class ParquetFiles {

    private ParquetFiles() {}

    /** Writes {@code records} of {@code schema} to {@code file}; returns {@code file}. */
    public static Path write(Path file, Schema schema, List<? extends GenericRecord> records)
            throws IOException {
        try (ParquetWriter<GenericRecord> w =
                AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                        .withConf(new PlainParquetConfiguration())
                        .withDataModel(GenericData.get())
                        .withSchema(schema)
                        .build()) {
            for (GenericRecord r : records) {
                w.write(r);
            }
        }
        return file;
    }
}
