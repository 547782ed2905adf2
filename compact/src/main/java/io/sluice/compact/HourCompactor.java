package io.sluice.compact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.CompactConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.ManifestPublish;
import io.sluice.lake.Publication;
import io.sluice.lake.Sha256;
import io.sluice.lake.WarehouseHours;
import io.sluice.lake.WarehouseManifest;
import io.sluice.lake.WarehouseSchema;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts one complete landing hour of a table into its warehouse hour: reads the Avro files the
 * landing manifest lists (resolving each file's writer schema to the table's current schema),
 * removes duplicate ids, hash-buckets rows by key (Hive bucketing_version 2), sorts each bucket by
 * (key, event time, id), writes one Parquet file per non-empty bucket and publishes the hour in one
 * atomic step.
 *
 * <p>The output is a pure function of the landing hour: file names carry a digest of their bytes,
 * and neither the files nor the manifest hold a wall-clock time. Compacting the same input again
 * therefore yields the same names and bytes, and a crash at any point leaves the previous hour in
 * place. On a {@code file:} root the new files are built outside the warehouse and swapped in whole
 * ({@link Publish#replace}); on an object store, which cannot rename, they are uploaded under their
 * digest names and the hour's manifest, written last, switches Sluice's readers to them ({@link
 * ManifestPublish}).
 *
 * <p>Plain Java with no Flink types in its logic: the compact job calls it per hour, and so do
 * tests and the benchmark. An hour whose rows fit the memory budget ({@link #memoryBudget}) is held
 * in memory while it is compacted; a larger one is de-duplicated and sorted through sorted runs on
 * local disk ({@link SpilledHour}), into the same files.
 */
public final class HourCompactor {

    /** What happened to an hour. */
    public enum Outcome {
        COMPACTED,
        UP_TO_DATE,
        /** The landing hour has no {@code _SUCCESS} yet. */
        INCOMPLETE,
        /** Compaction failed; the previous warehouse hour, if any, is untouched. */
        FAILED
    }

    /** The result of one hour. */
    public record Result(
            String table,
            String partition,
            Outcome outcome,
            long sourceRows,
            long rows,
            long duplicatesRemoved,
            int files,
            long bytes,
            String error) {

        /** A failed hour, with the reason. */
        public static Result failed(String table, String partition, Throwable error) {
            return new Result(
                    table, partition, Outcome.FAILED, 0, 0, 0, 0, 0, String.valueOf(error));
        }

        static Result of(Outcome outcome, WarehouseManifest m) {
            return new Result(
                    m.table(),
                    m.partition(),
                    outcome,
                    m.sourceRows(),
                    m.rows(),
                    m.duplicatesRemoved(),
                    m.files().size(),
                    m.files().stream().mapToLong(WarehouseManifest.BucketFile::bytes).sum(),
                    null);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(HourCompactor.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final TableConfig table;
    private final URI stagingRoot;
    private final WarehouseSchema warehouseSchema;
    private final HourRows hourRows;
    private final WarehouseHours hours;
    private final int threads;
    private final long memoryBudget;
    private final BucketFiles bucketFiles;

    /** Commits to the table's Iceberg table after each publish; null without a catalog. */
    private final IcebergCommits iceberg;

    /**
     * A compactor of {@code table} under {@code root} (a local {@code storage.root}), one thread.
     */
    public HourCompactor(TableConfig table, Path root) {
        this(builder(table, root.toUri()));
    }

    private HourCompactor(Builder options) {
        URI root = options.root;
        this.table = options.table;
        this.threads = options.threads;
        this.memoryBudget = options.memoryBudget;
        this.stagingRoot = LakeFiles.resolve(root, "_staging/compact/" + table.name());
        this.warehouseSchema = WarehouseSchema.of(table.schema());
        this.bucketFiles = new BucketFiles(table, warehouseSchema, options.afterBucket);
        this.hourRows = new HourRows(table);
        this.hours = new WarehouseHours(table, root);
        this.iceberg =
                options.iceberg == null
                        ? null
                        : new IcebergCommits(
                                options.iceberg,
                                hours,
                                LakeFiles.resolve(root, "warehouse/" + table.name()));
    }

    /**
     * A compactor of {@code table} under {@code root}: {@code storage.root}, a {@code file:}
     * directory or an object store's prefix. Without more options it runs on one thread, with the
     * default memory budget and no catalog.
     */
    public static Builder builder(TableConfig table, URI root) {
        return new Builder(table, root);
    }

    /** A compactor for planning ({@link #pending}), with {@code catalog} (null for none). */
    static HourCompactor planner(TableConfig table, String root, LakeCatalog catalog) {
        return builder(table, URI.create(root)).catalog(catalog).build();
    }

    /** How a compactor runs besides its table and root; {@link #build} makes it. */
    public static final class Builder {
        private final TableConfig table;
        private final URI root;
        private int threads = 1;
        private long memoryBudget = HourCompactor.memoryBudget(CompactConfig.DEFAULTS, 1);
        private IcebergHours iceberg;
        private IntConsumer afterBucket = bucketsWritten -> {};

        private Builder(TableConfig table, URI root) {
            this.table = table;
            this.root = root;
        }

        /** Threads that read one hour's landing files and write its bucket files. */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be >= 1, got " + threads);
            }
            this.threads = threads;
            return this;
        }

        /**
         * Bytes an hour's rows may take on the heap before it is sorted through local disk instead
         * ({@link #memoryBudget(CompactConfig, int)}).
         */
        public Builder memoryBudget(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("memoryBudget must be >= 1, got " + bytes);
            }
            this.memoryBudget = bytes;
            return this;
        }

        /**
         * Commits each hour published to the table's Iceberg table in {@code catalog} (null for
         * none), and counts hours published but not committed as {@link #pending}.
         */
        public Builder catalog(LakeCatalog catalog) {
            return iceberg(catalog == null ? null : new IcebergHours(catalog.table(table), table));
        }

        /**
         * The table's Iceberg table: each hour published is then also committed to it, as one
         * overwrite of the hour's partition ({@link IcebergHours#commit}).
         */
        public Builder iceberg(IcebergHours iceberg) {
            this.iceberg = iceberg;
            return this;
        }

        /**
         * Called with the number of bucket files written so far; tests use it to stop the process
         * half-way.
         */
        Builder afterBucket(IntConsumer afterBucket) {
            this.afterBucket = afterBucket;
            return this;
        }

        public HourCompactor build() {
            return new HourCompactor(this);
        }
    }

    /**
     * The memory budget of one hour: {@code compact.memory_percent} of this JVM's maximum heap
     * ({@code -Xmx}), divided between the {@code sharers} that compact hours in it at once (the
     * compact job's subtasks). The budget bounds the rows' estimated heap ({@link
     * HourRows#footprint}); the rest of the heap is left to the sort's and de-duplication's arrays,
     * the Parquet writers' row groups and the garbage collector.
     */
    public static long memoryBudget(CompactConfig config, int sharers) {
        return Runtime.getRuntime().maxMemory()
                / 100
                * config.memoryPercent()
                / Math.max(1, sharers);
    }

    public TableConfig table() {
        return table;
    }

    /** {@code <root>/warehouse/<table>/<partition>}. */
    public URI warehouseHour(String partition) {
        return hours.warehouseHour(partition);
    }

    /** See {@link WarehouseHours#pending}. */
    public List<String> pending(Optional<Long> fromHour, Optional<Long> toHour, boolean force)
            throws IOException {
        List<String> pending = hours.pending(fromHour, toHour, force);
        return iceberg == null || force
                ? pending
                : iceberg.withUncommitted(pending, fromHour, toHour);
    }

    /**
     * Compacts one hour if its warehouse copy is stale (or always, with {@code force}).
     *
     * @param partition {@code dt=YYYY-MM-DD/hr=HH}
     */
    public Result compact(String partition, boolean force) throws IOException {
        HourPartitioner.parse(partition); // rejects anything that is not a partition name
        URI rawHour = hours.landingHour(partition);
        byte[] manifestBytes;
        try {
            manifestBytes = LakeFiles.read(LakeFiles.resolve(rawHour, HourManifest.NAME));
        } catch (FileNotFoundException notYet) {
            return new Result(table.name(), partition, Outcome.INCOMPLETE, 0, 0, 0, 0, 0, null);
        }
        String sourceDigest = Sha256.hex(manifestBytes);
        Optional<WarehouseManifest> current = WarehouseManifest.read(warehouseHour(partition));
        if (!force
                && current.isPresent()
                && current.get().sourceManifestSha256().equals(sourceDigest)) {
            if (iceberg != null) {
                // Published before, but perhaps not committed: a crash between the two.
                iceberg.commitPublished(current.get());
            }
            return Result.of(Outcome.UP_TO_DATE, current.get());
        }

        ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads) : null;
        try {
            List<HourRows.LandingFile> files = landingFiles(rawHour, JSON.readTree(manifestBytes));
            long landedRows = files.stream().mapToLong(HourRows.LandingFile::rows).sum();
            // Every row costs at least its overhead: an hour sure to exceed the budget is not
            // read into memory first.
            List<HourRows.Row> rows =
                    landedRows * HourRows.ROW_OVERHEAD <= memoryBudget
                            ? InMemoryHour.read(hourRows, files, landedRows, memoryBudget, pool)
                            : null;
            WarehouseManifest manifest;
            if (rows != null) {
                manifest =
                        publish(
                                partition,
                                sourceDigest,
                                rows.size(),
                                InMemoryHour.buckets(hourRows, table.buckets(), rows),
                                pool);
            } else {
                try (SpilledHour spilled = SpilledHour.sort(hourRows, table, files, memoryBudget)) {
                    int[] runs = spilled.runs();
                    LOG.info(
                            "{} {}: {} rows over the memory budget of {} bytes, sorted through"
                                    + " {} + {} runs on local disk",
                            table.name(),
                            partition,
                            spilled.sourceRows(),
                            memoryBudget,
                            runs[0],
                            runs[1]);
                    manifest =
                            publish(partition, sourceDigest, spilled.sourceRows(), spilled, pool);
                }
            }
            return Result.of(Outcome.COMPACTED, manifest);
        } finally {
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }

    /** The landing manifest's files in name order, which numbers their rows. */
    private static List<HourRows.LandingFile> landingFiles(URI rawHour, JsonNode manifest) {
        List<JsonNode> files = new ArrayList<>();
        manifest.path("files").forEach(files::add);
        files.sort(Comparator.comparing(f -> f.path("name").asText()));
        List<HourRows.LandingFile> landing = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            JsonNode file = files.get(i);
            landing.add(
                    new HourRows.LandingFile(
                            LakeFiles.resolve(rawHour, file.path("name").asText()),
                            i,
                            file.path("rows").asLong()));
        }
        return landing;
    }

    /**
     * Writes the buckets and the manifest and publishes them as the hour ({@link Publication}: on a
     * file system swapped in from staging; on an object store each bucket file uploaded under its
     * digest name as soon as it is written, the manifest last).
     */
    private WarehouseManifest publish(
            String partition,
            String sourceDigest,
            long sourceRows,
            SortedBuckets buckets,
            ExecutorService pool)
            throws IOException {
        try (Publication hour =
                Publication.begin(
                        warehouseHour(partition), stagingRoot, partition.replace('/', '_'))) {
            IcebergCommits.Hour committed = iceberg == null ? null : iceberg.hour();
            List<WarehouseManifest.BucketFile> files =
                    bucketFiles.write(
                            hour.scratch(),
                            buckets,
                            pool,
                            f -> {
                                if (committed != null) {
                                    committed.written(hour.scratch().resolve(f.name()));
                                }
                                hour.add(f.name());
                            });
            WarehouseManifest manifest = manifest(partition, sourceDigest, sourceRows, files);
            hour.publish(WarehouseManifest.NAME, manifest.toJson());
            if (committed != null) {
                committed.commit(manifest);
            }
            return manifest;
        }
    }

    private WarehouseManifest manifest(
            String partition,
            String sourceDigest,
            long sourceRows,
            List<WarehouseManifest.BucketFile> files) {
        long kept = files.stream().mapToLong(WarehouseManifest.BucketFile::rows).sum();
        return new WarehouseManifest(
                table.name(),
                partition,
                sourceDigest,
                sourceRows,
                kept,
                sourceRows - kept,
                table.buckets(),
                files,
                warehouseSchema.schema());
    }
}
