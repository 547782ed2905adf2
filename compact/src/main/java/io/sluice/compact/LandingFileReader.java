package io.sluice.compact;

import io.sluice.config.TableConfig;
import io.sluice.lake.HiveBucketing;
import io.sluice.lake.LakeFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/** The rows of a landing file as {@link HourRows.Row}s: each row's encoding and sort values. */
final class LandingFileReader {

    private final TableConfig table;
    private final int keyPos;
    private final int timePos;
    private final int idPos;

    /** The current schema's key, event time and id fields only, in its order. */
    private final Schema sortFields;

    LandingFileReader(TableConfig table) {
        this.table = table;
        Schema schema = table.schema();
        this.keyPos = schema.getField(table.key()).pos();
        this.timePos = schema.getField(table.eventTime()).pos();
        this.idPos = schema.getField(table.id()).pos();
        this.sortFields =
                HourRows.projection(
                        schema, Set.copyOf(List.of(table.key(), table.eventTime(), table.id())));
    }

    /**
     * Reads one landing file, handing its rows to {@code sink} as they are read, numbered from
     * {@code fileIndex << 40}.
     *
     * <p>A file written in the table's current schema (every file, until the schema evolves) keeps
     * each row's bytes as they are in the file: only the key, time and id are decoded, the other
     * fields skipped, and the row's span of the block is copied. A file in an older schema is
     * decoded whole into the current one and each row encoded again.
     */
    void read(URI file, int fileIndex, long expectedRows, HourRows.RowSink sink)
            throws IOException {
        Schema schema = table.schema();
        FileRows rows = new FileRows((long) fileIndex << 40, sink);
        try (InputStream in = LakeFiles.open(file);
                DataFileStream<GenericRecord> stream =
                        new DataFileStream<>(in, new GenericDatumReader<>(null, schema))) {
            if (stream.getSchema().equals(schema)) {
                readVerbatim(stream, rows);
            } else {
                readResolved(stream, schema, rows);
            }
        }
        if (rows.count != expectedRows) {
            throw new IOException(
                    file
                            + " holds "
                            + rows.count
                            + " rows but its landing manifest says "
                            + expectedRows);
        }
    }

    /** Each block's rows, their bytes copied from the block, their sort fields decoded. */
    private void readVerbatim(DataFileStream<GenericRecord> stream, FileRows rows)
            throws IOException {
        GenericDatumReader<GenericData.Record> reader =
                new GenericDatumReader<>(table.schema(), sortFields);
        int key = sortFields.getField(table.key()).pos();
        int time = sortFields.getField(table.eventTime()).pos();
        int id = sortFields.getField(table.id()).pos();
        BinaryDecoder decoder = null;
        GenericData.Record record = null;
        while (stream.hasNext()) {
            long n = stream.getBlockCount();
            ByteBuffer block = stream.nextBlock();
            int length = block.remaining();
            byte[] bytes;
            int start;
            if (block.hasArray()) {
                bytes = block.array();
                start = block.arrayOffset() + block.position();
            } else {
                bytes = new byte[length];
                block.get(bytes);
                start = 0;
            }
            int end = start + length;
            decoder = DecoderFactory.get().binaryDecoder(bytes, start, length, decoder);
            // The bytes the decoder has not consumed yet: a row's span is the difference.
            InputStream unread = decoder.inputStream();
            for (long i = 0; i < n; i++) {
                int from = end - unread.available();
                record = reader.read(record, decoder);
                int to = end - unread.available();
                rows.add(
                        record.get(key),
                        ((Number) record.get(time)).longValue(),
                        record.get(id),
                        Arrays.copyOfRange(bytes, from, to));
            }
        }
    }

    /** Each row decoded into {@code schema} and encoded again. */
    private void readResolved(DataFileStream<GenericRecord> stream, Schema schema, FileRows rows)
            throws IOException {
        GenericDatumWriter<GenericRecord> encoder = new GenericDatumWriter<>(schema);
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(512);
        BinaryEncoder binary = null;
        GenericRecord record = null;
        while (stream.hasNext()) {
            record = stream.next(record);
            buffer.reset();
            binary = EncoderFactory.get().directBinaryEncoder(buffer, binary);
            encoder.write(record, binary);
            rows.add(
                    record.get(keyPos),
                    ((Number) record.get(timePos)).longValue(),
                    record.get(idPos),
                    buffer.toByteArray());
        }
    }

    /** The rows of one file as they are read: numbered, their keys shared, handed on. */
    private final class FileRows {
        private final Map<Object, Object> keys = new HashMap<>();
        private final HourRows.RowSink sink;
        private long seq;
        long count;

        FileRows(long firstSeq, HourRows.RowSink sink) {
            this.seq = firstSeq;
            this.sink = sink;
        }

        void add(Object rawKey, long time, Object id, byte[] payload) throws IOException {
            Object key = keys.get(rawKey);
            if (key == null) {
                if (keys.size() >= MAX_SHARED_KEYS) {
                    // Sharing only saves memory; a file with very many keys need not hold them
                    // all.
                    keys.clear();
                }
                key = RowValues.stable(rawKey);
                keys.put(key, key);
            }
            count++;
            sink.accept(
                    new HourRows.Row(
                            payload,
                            key,
                            time,
                            RowValues.hash64(id),
                            HiveBucketing.bucket(key, table.buckets()),
                            seq++));
        }
    }

    /** Keys of one file shared between its rows, at most. */
    private static final int MAX_SHARED_KEYS = 1 << 16;
}
