package io.sluice.features.training;

import io.sluice.lake.ParquetFiles;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.IteratorResultIterator;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.formats.avro.typeutils.GenericRecordAvroTypeInfo;

/**
 * The spine as the training-set job's {@link org.apache.flink.connector.file.src.FileSource} reads
 * it: each row, read by {@link Spine#open}'s readers (Parquet typed as written, CSV as text),
 * becomes a row of the job's internal schema ({@link TrainingPlan#internalSchema}) with the spine's
 * columns, empty features and its position in the spine. A spine file is one split (Parquet and CSV
 * rows are numbered from the file's start), read as a stream, never held whole.
 *
 * <p>A bulk format that hands rows on in batches of {@link #BATCH}: a {@code StreamFormat} batches
 * by bytes read from the stream, and Parquet reads a whole row group at once and then nothing while
 * its rows are decoded, so one batch would hold a row group's rows (122,880 of DuckDB's).
 */
final class SpineFormat implements BulkFormat<GenericRecord, FileSourceSplit> {

    static final int BATCH = 1024;

    private static final long serialVersionUID = 1L;

    private final String internalSchema;
    private final String name;
    private final String spineSchema;
    private final boolean parquet;
    private final int spineColumns;

    SpineFormat(TrainingPlan plan, String name) {
        this.internalSchema = plan.internalSchema;
        this.name = name;
        this.parquet = Spine.isParquet(name);
        this.spineSchema = plan.spineSchema;
        this.spineColumns = new Schema.Parser().parse(plan.spineSchema).getFields().size();
    }

    @Override
    public Reader<GenericRecord> createReader(Configuration config, FileSourceSplit split)
            throws IOException {
        FSDataInputStream stream = split.path().getFileSystem().open(split.path());
        Spine.Rows rows;
        try {
            rows =
                    parquet
                            ? Spine.parquet(
                                    ParquetFiles.parquetInput(stream, split.fileSize()), name)
                            : SpineCsv.rows(
                                    new InputStreamReader(stream, StandardCharsets.UTF_8),
                                    name,
                                    new Schema.Parser().parse(spineSchema));
        } catch (IOException | RuntimeException e) {
            stream.close();
            throw e;
        }
        Schema schema = new Schema.Parser().parse(internalSchema);
        int rowColumn = schema.getField(TrainingPlan.ROW_COLUMN).pos();
        return new Reader<>() {
            long row;

            @Override
            public RecordIterator<GenericRecord> readBatch() throws IOException {
                long first = row;
                List<GenericRecord> batch = new ArrayList<>(BATCH);
                for (GenericRecord in; batch.size() < BATCH && (in = rows.next()) != null; ) {
                    GenericData.Record out = new GenericData.Record(schema);
                    for (int c = 0; c < spineColumns; c++) {
                        out.put(c, in.get(c));
                    }
                    out.put(rowColumn, row++);
                    batch.add(out);
                }
                return batch.isEmpty()
                        ? null
                        : new IteratorResultIterator<>(
                                batch.iterator(), CheckpointedPosition.NO_OFFSET, first);
            }

            @Override
            public void close() throws IOException {
                try {
                    rows.close();
                } finally {
                    stream.close();
                }
            }
        };
    }

    @Override
    public Reader<GenericRecord> restoreReader(Configuration config, FileSourceSplit split) {
        // A batch job restarts a failed region from its input, never from a checkpoint.
        throw new UnsupportedOperationException("the spine is read by a batch job, from its start");
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<GenericRecord> getProducedType() {
        return new GenericRecordAvroTypeInfo(new Schema.Parser().parse(internalSchema));
    }
}
