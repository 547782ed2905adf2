package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The external sort of an hour ({@link SpilledHour}, {@link SortedRuns}) against the in-memory
 * path: the same rows in the same order, the same de-duplication winners, and the same files.
 */
class SpilledHourTest {

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");
    private static final String HOUR = "dt=2026-11-21/hr=03";
    private static final long ALL_IN_MEMORY = Long.MAX_VALUE / 4;

    @TempDir Path root;

    private TableConfig purchases;
    private HourRows hourRows;

    @BeforeEach
    void landAnHourWithDuplicates() throws IOException {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        purchases = config.table("purchases").orElseThrow();
        hourRows = new HourRows(purchases);
        LandingHours.write(
                root,
                purchases,
                GeneratorOptions.defaults(3_000, 11)
                        .withStart(START)
                        .withSpan(Duration.ofHours(1))
                        .withRates(0.1, 0, 0),
                3,
                true);
        addConflictingCopies();
    }

    /**
     * Copies of one id that differ in key and time (so they sort far apart and into different
     * buckets), exact repeats, and ties on time that the digest decides, spread over two files.
     */
    private void addConflictingCopies() throws IOException {
        Schema schema = purchases.schema();
        long t = START.toEpochMilli() + 5_000;
        List<GenericRecord> first = new ArrayList<>();
        List<GenericRecord> second = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String id = "conflict-" + i;
            first.add(LandingEdits.purchase(schema, id, t + i, "user-a" + i, 1f, "IOS", "FR"));
            second.add(
                    LandingEdits.purchase(
                            schema, id, t + 60_000 - i, "user-b" + i, 2f, "WEB", "DE"));
            second.add(LandingEdits.purchase(schema, id, t + i, "user-a" + i, 3f, "IOS", "FR"));
            first.add(LandingEdits.purchase(schema, id, t + i, "user-a" + i, 1f, "IOS", "FR"));
        }
        Path dir = LandingEdits.hourDir(root, purchases, HOUR);
        LandingEdits.writeAvro(dir.resolve("part-a-conflict.avro"), schema, first);
        LandingEdits.writeAvro(dir.resolve("part-z-conflict.avro"), schema, second);
        LandingEdits.republish(root, purchases, HOUR);
    }

    private List<HourRows.LandingFile> landingFiles() throws IOException {
        try (Stream<Path> files = Files.list(LandingEdits.hourDir(root, purchases, HOUR))) {
            List<Path> avro = files.filter(p -> p.toString().endsWith(".avro")).sorted().toList();
            List<HourRows.LandingFile> landing = new ArrayList<>();
            for (int i = 0; i < avro.size(); i++) {
                landing.add(
                        new HourRows.LandingFile(
                                avro.get(i).toUri(),
                                i,
                                io.sluice.testing.Landing.records(avro.get(i))));
            }
            return landing;
        }
    }

    @Test
    void compactionThroughSpilledRunsWritesTheSameFilesAsInMemory() throws Exception {
        Map<String, byte[]> inMemory = compact(ALL_IN_MEMORY, 1);
        assertThat(inMemory).hasSizeGreaterThan(2);

        // 4 KiB: some 15 rows a run; 64 KiB: some 250; just over the manifest's estimate: read
        // into memory first, then found too large and spilled.
        long rows = landingFiles().stream().mapToLong(HourRows.LandingFile::rows).sum();
        for (long budget : new long[] {4 << 10, 64 << 10, rows * HourRows.ROW_OVERHEAD + 1}) {
            for (int threads : new int[] {1, 3}) {
                assertThat(compact(budget, threads))
                        .as("budget %d, %d threads", budget, threads)
                        .containsOnlyKeys(inMemory.keySet())
                        .allSatisfy(
                                (name, bytes) -> assertThat(bytes).isEqualTo(inMemory.get(name)));
            }
        }
    }

    /** Compacts the hour (again) and returns its warehouse files by name. */
    private Map<String, byte[]> compact(long budget, int threads) throws IOException {
        HourCompactor compactor =
                HourCompactor.builder(purchases, root.toUri())
                        .threads(threads)
                        .memoryBudget(budget)
                        .build();
        assertThat(compactor.compact(HOUR, true).outcome())
                .isEqualTo(HourCompactor.Outcome.COMPACTED);
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(Path.of(compactor.warehouseHour(HOUR)))) {
            for (Path f : list.toList()) {
                files.put(f.getFileName().toString(), Files.readAllBytes(f));
            }
        }
        return files;
    }

    @Test
    void copiesOfOneIdInDifferentRunsKeepTheInMemoryWinner() throws Exception {
        List<HourRows.LandingFile> files = landingFiles();
        try (SpilledHour spilled = SpilledHour.sort(hourRows, purchases, files, 1)) {
            long rows = files.stream().mapToLong(HourRows.LandingFile::rows).sum();
            assertThat(spilled.runs()[0]).as("a run per row").isEqualTo((int) rows);
            assertThat(spilled.sourceRows()).isEqualTo(rows);
            assertSameAsInMemory(spilled, files);
        }
    }

    @Test
    void oneRunWhenTheBudgetHoldsTheHour() throws Exception {
        List<HourRows.LandingFile> files = landingFiles();
        try (SpilledHour spilled = SpilledHour.sort(hourRows, purchases, files, ALL_IN_MEMORY)) {
            assertThat(spilled.runs()).containsExactly(1, 1);
            assertSameAsInMemory(spilled, files);
        }
    }

    @Test
    void manyRunsMergeIntoTheWarehouseOrder() throws Exception {
        List<HourRows.LandingFile> files = landingFiles();
        try (SpilledHour spilled = SpilledHour.sort(hourRows, purchases, files, 32 << 10)) {
            assertThat(spilled.runs()[0]).isGreaterThan(10);
            assertThat(spilled.runs()[1]).isGreaterThan(10);
            assertSameAsInMemory(spilled, files);
        }
    }

    @Test
    void anEmptyHourHasNoRunsAndNoRows() throws Exception {
        try (SpilledHour spilled = SpilledHour.sort(hourRows, purchases, List.of(), 1)) {
            assertThat(spilled.runs()).containsExactly(0, 0);
            assertThat(spilled.sourceRows()).isZero();
            for (int b = 0; b < purchases.buckets(); b++) {
                assertThat(spilled.rows(b)).isZero();
                try (RowStream rows = spilled.open(b).rows()) {
                    assertThat(rows.next()).isNull();
                }
            }
        }
    }

    @Test
    void anEmptyLandingHourCompactsToTheSameManifestOnBothPaths() throws Exception {
        Path dir = LandingEdits.hourDir(root, purchases, HOUR);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".avro")).toList()) {
                Files.delete(f);
            }
        }
        LandingEdits.writeAvro(dir.resolve("part-0.avro"), purchases.schema(), List.of());
        LandingEdits.republish(root, purchases, HOUR);

        Map<String, byte[]> inMemory = compact(ALL_IN_MEMORY, 1);
        Map<String, byte[]> spilled = compact(1, 1);

        assertThat(inMemory).containsOnlyKeys("_SUCCESS");
        assertThat(spilled.get("_SUCCESS")).isEqualTo(inMemory.get("_SUCCESS"));
    }

    @Test
    void runFilesAreDeletedWhenTheHourIsClosed() throws Exception {
        Path spillDir;
        try (SpilledHour spilled = SpilledHour.sort(hourRows, purchases, landingFiles(), 4096)) {
            spillDir = spilled.dir();
            try (Stream<Path> runs = Files.list(spillDir)) {
                assertThat(runs.count()).isEqualTo(spilled.runs()[1]);
            }
            assertThat(spillDir.getParent())
                    .isEqualTo(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        }
        assertThat(spillDir).doesNotExist();
    }

    /**
     * Every bucket holds the rows the in-memory path keeps (compared by their numbers in the hour,
     * which tell copies of one id apart), in its order, with the same count of distinct keys.
     */
    private void assertSameAsInMemory(SpilledHour spilled, List<HourRows.LandingFile> files)
            throws IOException {
        List<HourRows.Row> all = new ArrayList<>();
        for (HourRows.LandingFile f : files) {
            all.addAll(hourRows.read(f.uri(), f.index(), f.rows()));
        }
        List<HourRows.Row> unique = hourRows.deduplicate(all);
        assertThat(unique).hasSizeLessThan(all.size());
        List<List<HourRows.Row>> buckets = new ArrayList<>();
        for (int b = 0; b < purchases.buckets(); b++) {
            buckets.add(new ArrayList<>());
        }
        unique.forEach(r -> buckets.get(r.bucket).add(r));
        SortedBuckets expected = SortedBuckets.inMemory(buckets, hourRows);
        for (int b = 0; b < purchases.buckets(); b++) {
            assertThat(spilled.rows(b)).isEqualTo(expected.rows(b));
            SortedBuckets.Bucket want = expected.open(b);
            SortedBuckets.Bucket got = spilled.open(b);
            assertThat(got.distinctKeys()).as("bucket %d", b).isEqualTo(want.distinctKeys());
            assertThat(seqs(got.rows())).as("bucket %d", b).isEqualTo(seqs(want.rows()));
        }
    }

    private static List<Long> seqs(RowStream rows) throws IOException {
        List<Long> seqs = new ArrayList<>();
        try (rows) {
            HourRows.Row row;
            while ((row = rows.next()) != null) {
                seqs.add(row.seq);
            }
        }
        return seqs;
    }
}
