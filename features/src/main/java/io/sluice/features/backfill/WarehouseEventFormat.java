package io.sluice.features.backfill;

import io.sluice.config.TableConfig;
import io.sluice.event.Event;
import io.sluice.event.Parsed;
import io.sluice.lake.ParquetFiles;
import io.sluice.lake.WarehouseSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;

/**
 * Reads a table's warehouse Parquet files back into the events the features job consumes from
 * Kafka: each row becomes an accepted {@link Parsed} whose payload is the row in the table's
 * current schema ({@code timestamp-micros} narrowed back to the table's {@code timestamp-millis},
 * strings back to the table's enum symbols), so the backfill runs the streaming job's operators
 * unchanged.
 *
 * <p>Parquet decoding is parquet-avro's {@link AvroParquetReader}, each file read whole as one
 * split, with the file's own schema. Fields are matched by name, so an hour compacted under an
 * older schema still reads, with the current schema's defaults for fields it lacks.
 * (flink-parquet's {@code AvroParquetReaders} does the same, but builds two Hadoop configurations
 * per file, each parsing {@code core-default.xml}: in a profile of the backfill, more CPU than
 * reading the rows.)
 */
final class WarehouseEventFormat implements StreamFormat<Parsed> {

    private static final long serialVersionUID = 1L;

    private final String schemaJson;
    private final String idField;
    private final String keyField;
    private final String eventTimeField;

    WarehouseEventFormat(TableConfig table) {
        this.schemaJson = table.schema().toString();
        this.idField = table.id();
        this.keyField = table.key();
        this.eventTimeField = table.eventTime();
    }

    @Override
    public Reader<Parsed> createReader(
            Configuration config, FSDataInputStream stream, long fileLen, long splitEnd)
            throws IOException {
        if (splitEnd != fileLen) {
            throw new IllegalArgumentException(
                    "a warehouse file is read whole, but its split ends at "
                            + splitEnd
                            + " of "
                            + fileLen
                            + " bytes");
        }
        return new EventReader(
                AvroParquetReader.<GenericRecord>builder(
                                ParquetFiles.parquetInput(stream, fileLen),
                                new PlainParquetConfiguration())
                        .withDataModel(GenericData.get())
                        .build());
    }

    @Override
    public Reader<Parsed> restoreReader(
            Configuration config,
            FSDataInputStream stream,
            long restoredOffset,
            long fileLen,
            long splitEnd)
            throws IOException {
        // The reader's position is always NO_OFFSET: a restore reopens the file and the source
        // skips the rows it had read.
        if (restoredOffset != CheckpointedPosition.NO_OFFSET) {
            throw new IllegalArgumentException(
                    "a warehouse file is re-read from its start, not from offset "
                            + restoredOffset);
        }
        return createReader(config, stream, fileLen, splitEnd);
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<Parsed> getProducedType() {
        return TypeInformation.of(Parsed.class);
    }

    private final class EventReader implements StreamFormat.Reader<Parsed> {
        private final ParquetReader<GenericRecord> rows;
        private final Schema schema = new Schema.Parser().parse(schemaJson);
        private final GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private final WarehouseSchema warehouse = WarehouseSchema.of(schema);
        private BinaryEncoder encoder;
        private long rowsRead;

        EventReader(ParquetReader<GenericRecord> rows) {
            this.rows = rows;
        }

        @Override
        public Parsed read() throws IOException {
            GenericRecord row = rows.read();
            if (row == null) {
                return null;
            }
            rowsRead++;
            GenericData.Record record = new GenericData.Record(schema);
            for (Schema.Field f : schema.getFields()) {
                Schema.Field stored = row.getSchema().getField(f.name());
                record.put(
                        f.pos(),
                        stored == null
                                ? GenericData.get().getDefaultValue(f)
                                : row.get(stored.pos()));
            }
            warehouse.revert(record);
            return Parsed.accepted(
                    new Event(
                            String.valueOf(record.get(idField)),
                            String.valueOf(record.get(keyField)),
                            (Long) record.get(eventTimeField),
                            encode(record)));
        }

        private byte[] encode(GenericRecord record) throws IOException {
            buffer.reset();
            encoder = EncoderFactory.get().binaryEncoder(buffer, encoder);
            writer.write(record, encoder);
            encoder.flush();
            return buffer.toByteArray();
        }

        @Override
        public void close() throws IOException {
            rows.close();
        }

        /** Rows read so far: a restore reopens the file and skips them. */
        @Override
        public CheckpointedPosition getCheckpointedPosition() {
            return new CheckpointedPosition(CheckpointedPosition.NO_OFFSET, rowsRead);
        }
    }
}
