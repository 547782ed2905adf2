package io.sluice.warehouse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.TableConfig;
import io.sluice.ingest.HourManifest;
import io.sluice.ingest.HourPartitioner;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.flink.util.FileUtils;

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
 * place (new files are built outside the warehouse and swapped in whole).
 *
 * <p>Plain Java with no Flink types in its logic: the compact job calls it per hour, and so do
 * tests and the benchmark. One hour is held in memory while it is compacted.
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
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DIGEST_CHARS = 16;
    private static final String TRASH_SUFFIX = ".old";

    /** How long a displaced hour is kept for readers that listed it just before the swap. */
    static final Duration TRASH_GRACE = Duration.ofMinutes(10);

    private final TableConfig table;
    private final Path rawTable;
    private final Path warehouseTable;
    private final Path staging;
    private final WarehouseSchema warehouseSchema;
    private final int keyPos;
    private final int timePos;
    private final int idPos;
    private final IntConsumer afterBucket;

    /**
     * @param root the local directory of {@code storage.root}
     */
    public HourCompactor(TableConfig table, Path root) {
        this(table, root, bucketsWritten -> {});
    }

    /**
     * @param afterBucket called with the number of bucket files written so far; tests use it to
     *     stop the process half-way
     */
    HourCompactor(TableConfig table, Path root, IntConsumer afterBucket) {
        this.afterBucket = afterBucket;
        this.table = table;
        this.rawTable = root.resolve("raw").resolve(table.name());
        this.warehouseTable = root.resolve("warehouse").resolve(table.name());
        this.staging = root.resolve("_staging").resolve("compact").resolve(table.name());
        this.warehouseSchema = WarehouseSchema.of(table.schema());
        this.keyPos = table.schema().getField(table.key()).pos();
        this.timePos = table.schema().getField(table.eventTime()).pos();
        this.idPos = table.schema().getField(table.id()).pos();
    }

    public TableConfig table() {
        return table;
    }

    /** {@code <root>/warehouse/<table>/<partition>}. */
    public Path warehouseHour(String partition) {
        return warehouseTable.resolve(partition);
    }

    /**
     * Complete landing hours in {@code [fromHour, toHour)} (epoch millis, either end open when
     * empty) whose warehouse hour is missing or was built from an older landing manifest; with
     * {@code force}, every complete hour in range. Sorted by partition.
     */
    public List<String> pending(Optional<Long> fromHour, Optional<Long> toHour, boolean force)
            throws IOException {
        List<String> pending = new ArrayList<>();
        for (String partition : completeHours()) {
            long start = HourPartitioner.parse(partition);
            if (fromHour.isPresent() && start < fromHour.get()
                    || toHour.isPresent() && start >= toHour.get()) {
                continue;
            }
            if (force || isStale(partition)) {
                pending.add(partition);
            }
        }
        return pending;
    }

    /** Landing partitions of this table that have a {@code _SUCCESS}, sorted. */
    List<String> completeHours() throws IOException {
        List<String> hours = new ArrayList<>();
        if (!Files.isDirectory(rawTable)) {
            return hours;
        }
        try (Stream<Path> days = Files.list(rawTable)) {
            for (Path day :
                    days.filter(p -> p.getFileName().toString().startsWith("dt=")).toList()) {
                try (Stream<Path> hrs = Files.list(day)) {
                    hrs.filter(p -> p.getFileName().toString().startsWith("hr="))
                            .filter(p -> Files.isRegularFile(p.resolve(HourManifest.NAME)))
                            .map(p -> day.getFileName() + "/" + p.getFileName())
                            .forEach(hours::add);
                }
            }
        }
        hours.sort(Comparator.naturalOrder());
        return hours;
    }

    private boolean isStale(String partition) throws IOException {
        Optional<WarehouseManifest> current = WarehouseManifest.read(warehouseHour(partition));
        return current.isEmpty()
                || !current.get().sourceManifestSha256().equals(landingManifestDigest(partition));
    }

    private String landingManifestDigest(String partition) throws IOException {
        return sha256(Files.readAllBytes(rawTable.resolve(partition).resolve(HourManifest.NAME)));
    }

    /**
     * Compacts one hour if its warehouse copy is stale (or always, with {@code force}).
     *
     * @param partition {@code dt=YYYY-MM-DD/hr=HH}
     */
    public Result compact(String partition, boolean force) throws IOException {
        HourPartitioner.parse(partition); // rejects anything that is not a partition name
        Path rawHour = rawTable.resolve(partition);
        Path landingManifest = rawHour.resolve(HourManifest.NAME);
        if (!Files.isRegularFile(landingManifest)) {
            return new Result(table.name(), partition, Outcome.INCOMPLETE, 0, 0, 0, 0, 0, null);
        }
        byte[] manifestBytes = Files.readAllBytes(landingManifest);
        String sourceDigest = sha256(manifestBytes);
        Path target = warehouseHour(partition);
        Optional<WarehouseManifest> current = WarehouseManifest.read(target);
        if (!force
                && current.isPresent()
                && current.get().sourceManifestSha256().equals(sourceDigest)) {
            WarehouseManifest m = current.get();
            return new Result(
                    table.name(),
                    partition,
                    Outcome.UP_TO_DATE,
                    m.sourceRows(),
                    m.rows(),
                    m.duplicatesRemoved(),
                    m.files().size(),
                    m.files().stream().mapToLong(WarehouseManifest.BucketFile::bytes).sum(),
                    null);
        }

        List<Row> rows = readHour(rawHour, JSON.readTree(manifestBytes));
        long sourceRows = rows.size();
        List<List<Row>> buckets = bucketize(deduplicate(rows));

        String stem = partition.replace('/', '_');
        removeLeftovers(stem);
        Files.createDirectories(staging);
        Path stagingHour = staging.resolve(stem + "." + UUID.randomUUID());
        Files.createDirectory(stagingHour);
        try {
            List<WarehouseManifest.BucketFile> files = new ArrayList<>();
            long kept = 0;
            for (int b = 0; b < buckets.size(); b++) {
                List<Row> bucket = buckets.get(b);
                if (!bucket.isEmpty()) {
                    files.add(writeBucket(stagingHour, b, bucket));
                    kept += bucket.size();
                    afterBucket.accept(files.size());
                }
            }
            WarehouseManifest manifest =
                    new WarehouseManifest(
                            table.name(),
                            partition,
                            sourceDigest,
                            sourceRows,
                            kept,
                            sourceRows - kept,
                            table.buckets(),
                            files,
                            warehouseSchema.schema());
            Files.write(stagingHour.resolve(WarehouseManifest.NAME), manifest.toJson());
            // The displaced set stays in the staging area for a grace period: a reader that
            // listed the old directory just before the swap can still finish reading it.
            Path trash = staging.resolve(stem + "." + UUID.randomUUID() + TRASH_SUFFIX);
            AtomicDirectories.replace(stagingHour, target, trash);
            return new Result(
                    table.name(),
                    partition,
                    Outcome.COMPACTED,
                    sourceRows,
                    kept,
                    sourceRows - kept,
                    files.size(),
                    files.stream().mapToLong(WarehouseManifest.BucketFile::bytes).sum(),
                    null);
        } catch (IOException | RuntimeException e) {
            FileUtils.deleteDirectoryQuietly(stagingHour.toFile());
            throw e;
        }
    }

    /**
     * Removes a crashed run's staging directories of this hour, and displaced sets of any hour of
     * this table older than {@link #TRASH_GRACE}. All of them are outside the warehouse.
     */
    private void removeLeftovers(String stem) throws IOException {
        if (!Files.isDirectory(staging)) {
            return;
        }
        long graceStart = System.currentTimeMillis() - TRASH_GRACE.toMillis();
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(staging)) {
            for (Path leftover : leftovers) {
                String name = leftover.getFileName().toString();
                boolean expired =
                        name.endsWith(TRASH_SUFFIX)
                                && Files.getLastModifiedTime(leftover).toMillis() < graceStart;
                boolean crashed = name.startsWith(stem + ".") && !name.endsWith(TRASH_SUFFIX);
                if (expired || crashed) {
                    FileUtils.deleteDirectory(leftover.toFile());
                }
            }
        }
    }

    private List<Row> readHour(Path rawHour, JsonNode landingManifest) throws IOException {
        List<Row> rows =
                new ArrayList<>((int) Math.min(landingManifest.path("rows").asLong(), 1 << 24));
        List<JsonNode> files = new ArrayList<>();
        landingManifest.path("files").forEach(files::add);
        files.sort(Comparator.comparing(f -> f.path("name").asText()));
        int buckets = table.buckets();
        long seq = 0;
        for (JsonNode file : files) {
            Path path = rawHour.resolve(file.path("name").asText());
            long expected = file.path("rows").asLong();
            long read = 0;
            try (InputStream in = Files.newInputStream(path);
                    DataFileStream<GenericRecord> stream =
                            new DataFileStream<>(
                                    in, new GenericDatumReader<>(null, table.schema()))) {
                while (stream.hasNext()) {
                    GenericData.Record record = (GenericData.Record) stream.next();
                    Object key = comparable(record.get(keyPos));
                    Object time = record.get(timePos);
                    rows.add(
                            new Row(
                                    record,
                                    key,
                                    ((Number) time).longValue(),
                                    comparable(record.get(idPos)),
                                    HiveBucketing.bucket(key, buckets),
                                    seq++));
                    read++;
                }
            }
            if (read != expected) {
                throw new IOException(
                        path
                                + " holds "
                                + read
                                + " rows but its landing manifest says "
                                + expected);
            }
        }
        return rows;
    }

    /** Keeps, per id, the row that sorts first: the same row whatever order the files came in. */
    private static List<Row> deduplicate(List<Row> rows) {
        Map<Object, Row> byId = new HashMap<>(rows.size() * 4 / 3 + 1);
        boolean duplicates = false;
        for (Row row : rows) {
            Row previous = byId.putIfAbsent(row.id, row);
            if (previous != null) {
                duplicates = true;
                if (ORDER.compare(row, previous) < 0) {
                    byId.put(row.id, row);
                }
            }
        }
        return duplicates ? new ArrayList<>(byId.values()) : rows;
    }

    private List<List<Row>> bucketize(List<Row> rows) {
        List<List<Row>> buckets = new ArrayList<>(table.buckets());
        for (int b = 0; b < table.buckets(); b++) {
            buckets.add(new ArrayList<>());
        }
        for (Row row : rows) {
            buckets.get(row.bucket).add(row);
        }
        return buckets;
    }

    private WarehouseManifest.BucketFile writeBucket(Path dir, int bucket, List<Row> rows)
            throws IOException {
        rows.sort(ORDER);
        List<GenericRecord> records = new ArrayList<>(rows.size());
        long distinctKeys = 0;
        Object previousKey = null;
        for (Row row : rows) {
            if (previousKey == null || compareKeys(previousKey, row.key) != 0) {
                distinctKeys++;
                previousKey = row.key;
            }
            warehouseSchema.convert(row.record);
            records.add(row.record);
        }
        Path inProgress = dir.resolve(String.format("%06d_0.inprogress", bucket));
        BucketFileWriter.write(
                inProgress, warehouseSchema.schema(), table.key(), distinctKeys, records);
        String name =
                String.format(
                        "%06d_0_%s.parquet", bucket, digest(inProgress).substring(0, DIGEST_CHARS));
        Files.move(inProgress, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        return new WarehouseManifest.BucketFile(
                name,
                bucket,
                rows.size(),
                Files.size(dir.resolve(name)),
                jsonKey(rows.get(0).key),
                jsonKey(rows.get(rows.size() - 1).key));
    }

    /** Strings compare by their UTF-8 bytes, the order Parquet statistics and DuckDB use. */
    private static Object comparable(Object value) {
        if (value instanceof CharSequence chars && !(value instanceof Utf8)) {
            return new Utf8(chars.toString());
        }
        return value;
    }

    private static Object jsonKey(Object key) {
        return key instanceof Utf8 ? key.toString() : key;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(Object a, Object b) {
        return ((Comparable) a).compareTo(b);
    }

    private static final Comparator<Row> ORDER =
            (a, b) -> {
                int c = compareKeys(a.key, b.key);
                if (c != 0) {
                    return c;
                }
                c = Long.compare(a.time, b.time);
                if (c != 0) {
                    return c;
                }
                c = compareKeys(a.id, b.id);
                return c != 0 ? c : Long.compare(a.seq, b.seq);
            };

    private record Row(
            GenericData.Record record, Object key, long time, Object id, int bucket, long seq) {}

    private static String digest(Path file) throws IOException {
        MessageDigest sha = sha256();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new UncheckedIOException(new IOException("SHA-256 is not available", e));
        }
    }
}
