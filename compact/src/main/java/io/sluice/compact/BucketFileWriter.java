package io.sluice.compact;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;

/**
 * Writes one warehouse Parquet file with the storage contract's settings, from rows encoded in the
 * table's Avro schema ({@link PayloadWriteSupport}). All the settings are parquet-java's own
 * options; this class only chooses them.
 */
final class BucketFileWriter {

    /**
     * Rows per row group. DuckDB, Spark and Trino give each row group to one thread, so a large
     * hour splits into many groups read in parallel; and since rows are sorted by key, each group
     * covers a narrow key range that a point lookup skips by its min/max. With {@code ./sluice
     * bench compact} (1M rows), 32k-row groups made a lookup read 2.3x fewer bytes than 128k-row
     * groups; 16k-row groups read fewer still but slowed compaction.
     */
    static final int ROW_GROUP_ROWS = 32_768;

    /** Upper bound in bytes, for wide rows. */
    static final long ROW_GROUP_BYTES = 64L << 20;

    static final double BLOOM_FPP = 0.01;

    private BucketFileWriter() {}

    /**
     * Opens {@code file} for rows written by {@code support} (encoded in the table's schema,
     * written in the warehouse's), in sorted order.
     *
     * @param idColumn the event id, unique in the file
     * @param timeColumn the event time
     * @param distinctKeys distinct values of {@code keyColumn} the file will hold: sizes the bloom
     *     filter
     */
    static ParquetWriter<byte[]> open(
            Path file,
            PayloadWriteSupport support,
            String keyColumn,
            String idColumn,
            String timeColumn,
            long distinctKeys)
            throws IOException {
        return contract(
                        new Builder(new LocalOutputFile(file), support),
                        keyColumn,
                        idColumn,
                        timeColumn,
                        distinctKeys)
                .build();
    }

    /** Sets the storage contract's options on {@code builder}, whatever it writes. */
    static <T, B extends ParquetWriter.Builder<T, B>> B contract(
            B builder, String keyColumn, String idColumn, String timeColumn, long distinctKeys) {
        return builder.withConf(new PlainParquetConfiguration())
                .withWriteMode(ParquetFileWriter.Mode.CREATE)
                .withCompressionCodec(CompressionCodecName.ZSTD)
                .withDictionaryEncoding(true)
                // parquet-java drops the bloom filter of a column chunk whose pages are all
                // dictionary-encoded, so the key column is written plain (zstd still
                // compresses its sorted runs well) and gets its bloom filter.
                .withDictionaryEncoding(keyColumn, false)
                // Ids are unique once de-duplicated and event times nearly so (microseconds within
                // an hour): a dictionary of them is as large as the column itself, and parquet-java
                // fills one (hashing every value) until it passes its page size, then writes the
                // column plain anyway. They are written plain from the start.
                .withDictionaryEncoding(idColumn, false)
                .withDictionaryEncoding(timeColumn, false)
                .withBloomFilterEnabled(keyColumn, true)
                .withBloomFilterNDV(keyColumn, Math.max(1, distinctKeys))
                .withBloomFilterFPP(keyColumn, BLOOM_FPP)
                // Untruncated min/max, in the footer and in the page index.
                .withStatisticsTruncateLength(Integer.MAX_VALUE)
                .withColumnIndexTruncateLength(Integer.MAX_VALUE)
                .withRowGroupRowCountLimit(ROW_GROUP_ROWS)
                .withRowGroupSize(ROW_GROUP_BYTES)
                .withPageWriteChecksumEnabled(true);
    }

    /** parquet-java's builder with a {@link PayloadWriteSupport}. */
    private static final class Builder extends ParquetWriter.Builder<byte[], Builder> {

        private final PayloadWriteSupport support;

        Builder(OutputFile file, PayloadWriteSupport support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<byte[]> getWriteSupport(Configuration conf) {
            return support;
        }

        @Override
        protected WriteSupport<byte[]> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }
    }
}
