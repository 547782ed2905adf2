package io.sluice.compact;

import io.sluice.config.TableConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * An hour whose rows do not fit the memory budget, de-duplicated and sorted through local disk in
 * two external sorts ({@link SortedRuns}), each holding at most the budget's rows on the heap:
 *
 * <ol>
 *   <li>by id hash: the landing files are read one after the other into runs sorted by (id hash,
 *       row number), so their merge yields all copies of an id next to each other, whichever runs
 *       they fell into. Each group of rows sharing an id hash goes through {@link
 *       HourRows#deduplicate}, the in-memory path's own code, which keeps per id the winner of
 *       {@code DuplicateRule} (earliest event time, then smallest digest, then the first copy in
 *       file order) and tells hash collisions apart by the exact id. Copies of one id need not
 *       share a key or a time, so they cannot be found next to each other in the warehouse order;
 *       hence this first sort.
 *   <li>by bucket, key, event time and id ({@link HourRows#spillOrder}): the surviving rows go into
 *       runs split by bucket, and each bucket's runs are merged into its Parquet file. The merge is
 *       read twice per bucket, first to count its distinct keys, which size the bloom filter before
 *       the first row is written, as in the in-memory path, so both write the same bytes.
 * </ol>
 *
 * <p>The runs are local files in a directory of their own under {@code java.io.tmpdir}, whatever
 * the lake is (an object store cannot append or seek), deleted when this is closed.
 */
final class SpilledHour implements SortedBuckets, AutoCloseable {

    static final String DIR_PREFIX = "sluice-compact-spill-";

    private final Path dir;
    private final SortedRuns byBucket;
    private final long sourceRows;
    private final int idRuns;

    private SpilledHour(Path dir, SortedRuns byBucket, long sourceRows, int idRuns) {
        this.dir = dir;
        this.byBucket = byBucket;
        this.sourceRows = sourceRows;
        this.idRuns = idRuns;
    }

    /** Reads, de-duplicates and sorts {@code files} with at most {@code budget} bytes of rows. */
    static SpilledHour sort(
            HourRows hourRows, TableConfig table, List<HourRows.LandingFile> files, long budget)
            throws IOException {
        Path dir = Files.createTempDirectory(DIR_PREFIX);
        try {
            SpillCodec codec = new SpillCodec(table.schema().getField(table.key()).schema());
            SortedRuns byBucket =
                    new SortedRuns(
                            dir,
                            "bucket",
                            codec,
                            hourRows.spillOrder,
                            table.buckets(),
                            row -> row.bucket,
                            budget);
            long sourceRows = 0;
            int idRuns;
            try (SortedRuns byId =
                    new SortedRuns(dir, "id", codec, HourRows.ID_HASH_ORDER, 1, row -> 0, budget)) {
                for (HourRows.LandingFile file : files) {
                    hourRows.read(file.uri(), file.index(), file.rows(), byId::add);
                    sourceRows += file.rows();
                }
                byId.finish();
                idRuns = byId.runs();
                deduplicate(hourRows, byId, byBucket);
            }
            byBucket.finish();
            return new SpilledHour(dir, byBucket, sourceRows, idRuns);
        } catch (IOException | RuntimeException | Error e) {
            deleteAll(dir);
            throw e;
        }
    }

    /** Adds to {@code out} the rows of {@code byId} that win among the copies of their id. */
    private static void deduplicate(HourRows hourRows, SortedRuns byId, SortedRuns out)
            throws IOException {
        List<HourRows.Row> group = new ArrayList<>();
        try (RowStream rows = byId.merge(0)) {
            HourRows.Row row;
            while ((row = rows.next()) != null) {
                if (!group.isEmpty() && group.get(0).idHash != row.idHash) {
                    addGroup(hourRows, group, out);
                }
                group.add(row);
            }
        }
        addGroup(hourRows, group, out);
    }

    private static void addGroup(HourRows hourRows, List<HourRows.Row> group, SortedRuns out)
            throws IOException {
        if (group.size() == 1) {
            out.add(group.get(0));
        } else {
            for (HourRows.Row row : hourRows.deduplicate(group)) {
                out.add(row);
            }
        }
        group.clear();
    }

    /** The directory of the run files. */
    Path dir() {
        return dir;
    }

    /** Rows read from the landing files. */
    long sourceRows() {
        return sourceRows;
    }

    /** Runs spilled by the first sort (by id) and the second (by bucket), for tests and logs. */
    int[] runs() {
        return new int[] {idRuns, byBucket.runs()};
    }

    @Override
    public long rows(int bucket) {
        return byBucket.rows(bucket);
    }

    @Override
    public Bucket open(int bucket) throws IOException {
        long distinctKeys = 0;
        try (RowStream rows = byBucket.merge(bucket)) {
            Object previous = null;
            HourRows.Row row;
            while ((row = rows.next()) != null) {
                if (!row.key.equals(previous)) {
                    distinctKeys++;
                    previous = row.key;
                }
            }
        }
        return new Bucket(distinctKeys, byBucket.merge(bucket));
    }

    @Override
    public void close() throws IOException {
        try {
            byBucket.close();
        } finally {
            deleteAll(dir);
        }
    }

    private static void deleteAll(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
