package io.sluice.compact;

import io.sluice.config.TableConfig;
import io.sluice.lake.Sha256;
import io.sluice.lake.WarehouseManifest;
import io.sluice.lake.WarehouseSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.apache.parquet.hadoop.ParquetWriter;

/**
 * Writes an hour's sorted buckets ({@link SortedBuckets}) as the warehouse's Parquet files, one per
 * non-empty bucket: each row written from its Avro bytes in the table's schema to the warehouse
 * schema by {@link BucketFileWriter}, and each file named after its bucket and a digest of its
 * bytes ({@code 000007_0_<16 hex digits>.parquet}), so the same rows always give the same name.
 */
final class BucketFiles {

    private static final int DIGEST_CHARS = 16;

    /** What is done with a bucket file once it is written, before the next one is counted. */
    interface Written {
        void accept(WarehouseManifest.BucketFile file) throws IOException;
    }

    private final TableConfig table;
    private final WarehouseSchema warehouseSchema;
    private final IntConsumer afterBucket;

    /**
     * @param afterBucket called with the number of bucket files written so far; tests use it to
     *     stop the process half-way
     */
    BucketFiles(TableConfig table, WarehouseSchema warehouseSchema, IntConsumer afterBucket) {
        this.table = table;
        this.warehouseSchema = warehouseSchema;
        this.afterBucket = afterBucket;
    }

    /**
     * Writes the file of every non-empty bucket into {@code dir} (on {@code pool}), hands each to
     * {@code then}, and returns them in bucket order.
     */
    List<WarehouseManifest.BucketFile> write(
            Path dir, SortedBuckets buckets, ExecutorService pool, Written then)
            throws IOException {
        AtomicInteger written = new AtomicInteger();
        List<Callable<WarehouseManifest.BucketFile>> writes = new ArrayList<>();
        for (int b = 0; b < table.buckets(); b++) {
            int bucket = b;
            if (buckets.rows(b) > 0) {
                writes.add(
                        () -> {
                            WarehouseManifest.BucketFile f = write(dir, bucket, buckets);
                            then.accept(f);
                            afterBucket.accept(written.incrementAndGet());
                            return f;
                        });
            }
        }
        return Tasks.runAll(pool, writes);
    }

    private WarehouseManifest.BucketFile write(Path dir, int bucket, SortedBuckets buckets)
            throws IOException {
        SortedBuckets.Bucket sorted = buckets.open(bucket);
        Path inProgress = dir.resolve(String.format("%06d_0.inprogress", bucket));
        long rows = 0;
        Object firstKey = null;
        Object lastKey = null;
        try (RowStream stream = sorted.rows();
                ParquetWriter<byte[]> writer =
                        BucketFileWriter.open(
                                inProgress,
                                new PayloadWriteSupport(table.schema(), warehouseSchema),
                                table.key(),
                                table.id(),
                                table.eventTime(),
                                sorted.distinctKeys())) {
            HourRows.Row row;
            while ((row = stream.next()) != null) {
                writer.write(row.payload);
                if (rows++ == 0) {
                    firstKey = row.key;
                }
                lastKey = row.key;
            }
        }
        String name =
                String.format(
                        "%06d_0_%s.parquet",
                        bucket, Sha256.hex(inProgress).substring(0, DIGEST_CHARS));
        Files.move(inProgress, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        return new WarehouseManifest.BucketFile(
                name,
                bucket,
                rows,
                Files.size(dir.resolve(name)),
                RowValues.jsonKey(firstKey),
                RowValues.jsonKey(lastKey));
    }
}
