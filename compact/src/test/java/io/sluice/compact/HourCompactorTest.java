package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.AtomicDirectories;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.DuckDb;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.WarehouseCheck;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction of landing hours, checked with DuckDB, parquet-java and Hive's own Murmur3. */
class HourCompactorTest {

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");

    @TempDir Path root;

    private TableConfig purchases;
    private Map<String, Long> landed;

    @BeforeEach
    void landTwoHours() throws IOException {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        purchases = config.table("purchases").orElseThrow();
        // Keep duplicates in the landing zone, as happens when they arrive after the ingest
        // job's de-duplication retention: compaction must remove them.
        landed =
                LandingHours.write(
                        root,
                        purchases,
                        GeneratorOptions.defaults(6_000, 7)
                                .withStart(START)
                                .withSpan(Duration.ofHours(2))
                                .withRates(0.05, 0, 0),
                        3,
                        true);
        assertThat(landed).containsKeys("dt=2026-11-21/hr=03", "dt=2026-11-21/hr=04");
    }

    private HourCompactor compactor() {
        return new HourCompactor(purchases, root);
    }

    @Test
    void theBuilderRefusesNoThreadsAndNoMemoryNamingTheOption() {
        HourCompactor.Builder builder = HourCompactor.builder(purchases, root.toUri());
        assertThatThrownBy(() -> builder.threads(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("threads must be >= 1, got 0");
        assertThatThrownBy(() -> builder.memoryBudget(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("memoryBudget must be >= 1, got 0");
    }

    private String glob() {
        return root.resolve("warehouse/purchases") + "/*/*/*.parquet";
    }

    @Test
    void warehouseHoldsEachLandedIdOnceInItsHiveBucketSorted() throws Exception {
        HourCompactor compactor = compactor();
        List<String> pending = compactor.pending(Optional.empty(), Optional.empty(), false);
        assertThat(pending).containsExactlyElementsOf(landed.keySet());
        long duplicates = 0;
        for (String partition : pending) {
            HourCompactor.Result r = compactor.compact(partition, false);
            assertThat(r.outcome()).isEqualTo(HourCompactor.Outcome.COMPACTED);
            assertThat(r.sourceRows()).isEqualTo(landed.get(partition));
            duplicates += r.duplicatesRemoved();
        }
        Map<String, String> landingIds = landingIdsToPartition();
        assertThat(duplicates).isPositive();

        assertThat(WarehouseCheck.verify(root.resolve("warehouse/purchases"), purchases))
                .isEqualTo(landingIds);
    }

    @Test
    void parquetTypesAndSettingsAreAsDeclared() throws Exception {
        HourCompactor compactor = compactor();
        compactor.compact("dt=2026-11-21/hr=03", false);
        try (DuckDb duck = new DuckDb()) {
            Map<String, String> types = new TreeMap<>();
            for (Map<String, Object> r :
                    duck.rows("describe select * from read_parquet('" + glob() + "')")) {
                types.put((String) r.get("column_name"), (String) r.get("column_type"));
            }
            assertThat(types)
                    .containsEntry("event_time", "TIMESTAMP WITH TIME ZONE")
                    .containsEntry("price", "FLOAT")
                    .containsEntry("quantity", "INTEGER")
                    .containsEntry("user_id", "VARCHAR")
                    .containsEntry("coupon", "VARCHAR")
                    .containsEntry("device", "VARCHAR");
            assertThat(
                            duck.rows(
                                    "select distinct compression from parquet_metadata('"
                                            + glob()
                                            + "')"))
                    .extracting(r -> r.get("compression"))
                    .containsExactly("ZSTD");
            assertThat(
                            duck.count(
                                    "select count(*) from parquet_metadata('"
                                            + glob()
                                            + "') where path_in_schema = 'user_id'"
                                            + " and bloom_filter_offset is null"))
                    .isZero();
            assertThat(
                            duck.rows(
                                    "select distinct logical_type from parquet_schema('"
                                            + glob()
                                            + "') where name = 'event_time'"))
                    .extracting(r -> (String) r.get("logical_type"))
                    .singleElement()
                    .asString()
                    .contains("isAdjustedToUTC=1")
                    .contains("MICROS=MicroSeconds()");
            // Dictionary encoding on the other columns.
            assertThat(
                            duck.count(
                                    "select count(*) from parquet_metadata('"
                                            + glob()
                                            + "') where path_in_schema = 'category'"
                                            + " and encodings not like '%DICTIONARY%'"))
                    .isZero();
            // The event time round-trips exactly: millis became micros.
            Set<Long> landingMicros = new HashSet<>();
            for (GenericRecord r : landingRecords("dt=2026-11-21/hr=03")) {
                landingMicros.add((Long) r.get("event_time") * 1000);
            }
            Set<Long> warehouseMicros = new HashSet<>();
            for (Map<String, Object> r :
                    duck.rows(
                            "select epoch_us(event_time) as us from read_parquet('"
                                    + glob()
                                    + "')")) {
                warehouseMicros.add(((Number) r.get("us")).longValue());
            }
            assertThat(warehouseMicros).isEqualTo(landingMicros);
        }
        // Untruncated statistics and the page index, as parquet-java reads them back.
        try (Stream<Path> files =
                Files.list(Path.of(compactor.warehouseHour("dt=2026-11-21/hr=03")))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".parquet")).toList()) {
                try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
                    for (BlockMetaData block : reader.getFooter().getBlocks()) {
                        for (ColumnChunkMetaData column : block.getColumns()) {
                            assertThat(reader.readColumnIndex(column))
                                    .as("column index of %s", column.getPath())
                                    .isNotNull();
                            assertThat(reader.readOffsetIndex(column)).isNotNull();
                        }
                    }
                }
            }
        }
    }

    /**
     * Every column's Parquet physical and logical type, and the type DuckDB infers from them: the
     * README's reader table. An enum is a UTF8 string, so text comparisons match it in every
     * engine.
     */
    @Test
    void everyColumnHasTheParquetTypeTheReadersTableStates() throws Exception {
        String hour = "dt=2026-11-21/hr=03";
        compactor().compact(hour, false);
        try (DuckDb duck = new DuckDb()) {
            Map<String, String> parquet = new TreeMap<>();
            for (Map<String, Object> r :
                    duck.rows(
                            "select distinct name, type, logical_type from parquet_schema('"
                                    + glob()
                                    + "') where type is not null")) {
                parquet.put((String) r.get("name"), r.get("type") + " " + r.get("logical_type"));
            }
            String string = "BYTE_ARRAY StringType()";
            assertThat(parquet)
                    .containsExactlyInAnyOrderEntriesOf(
                            Map.ofEntries(
                                    Map.entry("event_id", string),
                                    Map.entry(
                                            "event_time",
                                            "INT64 TimestampType(isAdjustedToUTC=1,"
                                                    + " unit=TimeUnit(MILLIS=<null>,"
                                                    + " MICROS=MicroSeconds(), NANOS=<null>))"),
                                    Map.entry("user_id", string),
                                    Map.entry("session_id", string),
                                    Map.entry("order_id", string),
                                    Map.entry("item_id", string),
                                    Map.entry("category", string),
                                    Map.entry("price", "FLOAT null"),
                                    Map.entry("quantity", "INT32 null"),
                                    Map.entry("payment_method", string),
                                    Map.entry("coupon", string),
                                    Map.entry("device", string),
                                    Map.entry("country", string)));

            Map<String, String> duckTypes = new TreeMap<>();
            for (Map<String, Object> r :
                    duck.rows(
                            "describe select * from read_parquet('"
                                    + glob()
                                    + "', hive_partitioning = true)")) {
                duckTypes.put((String) r.get("column_name"), (String) r.get("column_type"));
            }
            assertThat(duckTypes)
                    .containsEntry("event_time", "TIMESTAMP WITH TIME ZONE")
                    .containsEntry("price", "FLOAT")
                    .containsEntry("quantity", "INTEGER")
                    .containsEntry("device", "VARCHAR")
                    .containsEntry("dt", "DATE")
                    .containsEntry("hr", "VARCHAR");

            // Text comparisons match the enum: the ids of WEB rows are the landing's.
            Set<String> webIds = new HashSet<>();
            for (GenericRecord r : landingRecords(hour)) {
                if (r.get("device").toString().equals("WEB")) {
                    webIds.add(r.get("event_id").toString());
                }
            }
            assertThat(webIds).isNotEmpty();
            assertThat(
                            duck.rows(
                                    "select event_id from read_parquet('"
                                            + glob()
                                            + "') where device = 'WEB'"))
                    .extracting(r -> (String) r.get("event_id"))
                    .containsExactlyInAnyOrderElementsOf(webIds);
        }
    }

    @Test
    void secondCompactionChangesNothingAndForcedOneWritesTheSameBytes() throws Exception {
        HourCompactor compactor = compactor();
        String hour = "dt=2026-11-21/hr=03";
        compactor.compact(hour, false);
        Map<String, String> first = contents(Path.of(compactor.warehouseHour(hour)));
        Map<String, FileTime> times = modified(Path.of(compactor.warehouseHour(hour)));

        assertThat(compactor.pending(Optional.empty(), Optional.empty(), false))
                .doesNotContain(hour)
                .contains("dt=2026-11-21/hr=04");
        assertThat(compactor.compact(hour, false).outcome())
                .isEqualTo(HourCompactor.Outcome.UP_TO_DATE);
        assertThat(modified(Path.of(compactor.warehouseHour(hour)))).isEqualTo(times);

        assertThat(compactor.compact(hour, true).outcome())
                .isEqualTo(HourCompactor.Outcome.COMPACTED);
        assertThat(contents(Path.of(compactor.warehouseHour(hour)))).isEqualTo(first);

        // Buckets written on several threads: still the same files, byte for byte.
        HourCompactor.builder(purchases, root.toUri()).threads(3).build().compact(hour, true);
        assertThat(contents(Path.of(compactor.warehouseHour(hour)))).isEqualTo(first);
    }

    @Test
    void reopenedHourIsRecompactedAndCrashMidWayLeavesThePreviousSet() throws Exception {
        HourCompactor compactor = compactor();
        String hour = "dt=2026-11-21/hr=04";
        compactor.compact(hour, false);
        Path target = Path.of(compactor.warehouseHour(hour));
        Map<String, String> before = contents(target);

        // A late event re-opens the hour: the landing zone gets a file and a new manifest.
        reopenWithLateFile(hour);
        assertThat(compactor.pending(Optional.empty(), Optional.empty(), false)).contains(hour);

        // The process dies after writing some buckets: an Error skips every cleanup path.
        HourCompactor crashing =
                HourCompactor.builder(purchases, root.toUri())
                        .afterBucket(
                                bucketsWritten -> {
                                    if (bucketsWritten == 3) {
                                        throw new SimulatedCrash();
                                    }
                                })
                        .build();
        assertThatThrownBy(() -> crashing.compact(hour, false)).isInstanceOf(SimulatedCrash.class);
        assertThat(contents(target)).isEqualTo(before);
        try (Stream<Path> all = Files.walk(root.resolve("warehouse"))) {
            assertThat(all.filter(p -> !Files.isDirectory(p)))
                    .allSatisfy(
                            p ->
                                    assertThat(p.getFileName().toString())
                                            .matches("_SUCCESS|\\d{6}_0_[0-9a-f]{16}\\.parquet"));
        }

        HourCompactor.Result again = compactor.compact(hour, false);
        assertThat(again.outcome()).isEqualTo(HourCompactor.Outcome.COMPACTED);
        assertThat(again.rows()).isEqualTo(WarehouseManifest.read(target).orElseThrow().rows());
        try (DuckDb duck = new DuckDb()) {
            assertThat(
                            duck.count(
                                    "select count(*) from read_parquet('"
                                            + target
                                            + "/*.parquet') where event_id = 'late-1'"))
                    .isEqualTo(1);
        }
        try (Stream<Path> staging = Files.list(root.resolve("_staging/compact/purchases"))) {
            assertThat(staging.map(p -> p.getFileName().toString()))
                    .as("the crashed run's staging directory is gone; the displaced set waits")
                    .singleElement()
                    .asString()
                    .endsWith(".old");
        }
    }

    @Test
    void readersSeeTheOldOrTheNewSetNeverAMix() throws Exception {
        assertThat(AtomicDirectories.exchangeSupported()).isTrue();
        HourCompactor compactor = compactor();
        String hour = "dt=2026-11-21/hr=03";
        compactor.compact(hour, false);
        Path target = Path.of(compactor.warehouseHour(hour));
        Set<Set<String>> published = new HashSet<>();
        published.add(parquetNames(target));
        List<Set<String>> observed = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean done =
                new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader =
                new Thread(
                        () -> {
                            while (!done.get()) {
                                try {
                                    observed.add(parquetNames(target));
                                } catch (IOException e) {
                                    observed.add(Set.of("error: " + e));
                                }
                            }
                        });
        reader.start();
        try {
            for (int i = 0; i < 5; i++) {
                reopenWithLateFile(hour, "late-" + i);
                compactor.compact(hour, false);
                published.add(parquetNames(target));
            }
        } finally {
            done.set(true);
            reader.join();
        }
        assertThat(published).hasSize(6);
        assertThat(observed).isNotEmpty().allSatisfy(set -> assertThat(published).contains(set));
    }

    @Test
    void olderWriterSchemaResolvesToTheCurrentOne() throws Exception {
        String hour = "dt=2026-11-21/hr=03";
        // A file written by a v1 producer (no coupon) next to current ones that set it.
        org.apache.avro.Schema v1 =
                io.sluice.schemas.Schemas.released("v1", "Purchase").orElseThrow();
        assertThat(v1.getField("coupon")).isNull();
        Path hourDir = root.resolve("raw/purchases").resolve(hour);
        writeOldSchemaFile(hourDir.resolve("part-v1.avro"), v1);
        LandingEdits.republish(root, purchases, hour);

        HourCompactor compactor = compactor();
        compactor.compact(hour, false);
        try (DuckDb duck = new DuckDb()) {
            assertThat(
                            duck.rows(
                                    "select event_id, coupon, price from read_parquet('"
                                            + Path.of(compactor.warehouseHour(hour))
                                            + "/*.parquet') where event_id like 'v1-%'"
                                            + " order by event_id"))
                    .extracting(
                            r -> r.get("event_id") + "/" + r.get("coupon") + "/" + r.get("price"))
                    .containsExactly("v1-0/null/1.5", "v1-1/null/1.5");
            assertThat(
                            duck.count(
                                    "select count(*) from read_parquet('"
                                            + Path.of(compactor.warehouseHour(hour))
                                            + "/*.parquet')"))
                    .isEqualTo(landed.get(hour) + 2 - duplicatesIn(hour));
        }
    }

    /**
     * Two copies of one id in one hour, in two landing files, in either file order: the warehouse
     * keeps {@link io.sluice.event.DuplicateRule}'s winner (the earliest event time, then the
     * smaller digest of the row in the current schema), as the streaming jobs do.
     */
    @Test
    void conflictingCopiesKeepTheRulesWinnerInEitherFileOrder() throws Exception {
        String hour = "dt=2026-11-21/hr=03";
        org.apache.avro.Schema schema = purchases.schema();
        long t = START.toEpochMilli() + 1_000;
        // "early": times differ, the earlier copy wins. "tie": same time, the digest decides.
        GenericRecord earlyWinner =
                LandingEdits.purchase(schema, "conflict-early", t, "user-c1", 1.0f, "IOS", "FR");
        GenericRecord earlyLoser =
                LandingEdits.purchase(
                        schema, "conflict-early", t + 60_000, "user-c2", 2.0f, "IOS", "FR");
        GenericRecord tieA =
                LandingEdits.purchase(schema, "conflict-tie", t, "user-c3", 3.0f, "IOS", "FR");
        GenericRecord tieB =
                LandingEdits.purchase(schema, "conflict-tie", t, "user-c3", 4.0f, "IOS", "FR");
        float tieWinner =
                io.sluice.event.DuplicateRule.compare(
                                        t, digest(schema, tieA), t, digest(schema, tieB))
                                < 0
                        ? 3.0f
                        : 4.0f;
        Path hourDir = root.resolve("raw/purchases").resolve(hour);
        Map<String, String> winners = new TreeMap<>();
        for (boolean winnersFirst : new boolean[] {true, false}) {
            List<GenericRecord> first =
                    winnersFirst ? List.of(earlyWinner, tieA) : List.of(earlyLoser, tieB);
            List<GenericRecord> second =
                    winnersFirst ? List.of(earlyLoser, tieB) : List.of(earlyWinner, tieA);
            LandingEdits.writeAvro(hourDir.resolve("part-0-conflict.avro"), schema, first);
            LandingEdits.writeAvro(hourDir.resolve("part-9-conflict.avro"), schema, second);
            LandingEdits.republish(root, purchases, hour);

            HourCompactor compactor = compactor();
            compactor.compact(hour, true);
            try (DuckDb duck = new DuckDb()) {
                List<Map<String, Object>> rows =
                        duck.rows(
                                "select event_id, user_id, price, epoch_ms(event_time) as t"
                                        + " from read_parquet('"
                                        + Path.of(compactor.warehouseHour(hour))
                                        + "/*.parquet') where event_id like 'conflict-%'"
                                        + " order by event_id");
                assertThat(rows)
                        .as("winners first: %s", winnersFirst)
                        .extracting(
                                r ->
                                        r.get("event_id")
                                                + "/"
                                                + r.get("user_id")
                                                + "/"
                                                + r.get("price")
                                                + "/"
                                                + r.get("t"))
                        .containsExactly(
                                "conflict-early/user-c1/1.0/" + t,
                                "conflict-tie/user-c3/" + tieWinner + "/" + t);
                winners.put(String.valueOf(winnersFirst), rows.toString());
            }
        }
        assertThat(winners.get("true")).isEqualTo(winners.get("false"));
    }

    private static byte[] digest(org.apache.avro.Schema schema, GenericRecord record)
            throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        var encoder = org.apache.avro.io.EncoderFactory.get().directBinaryEncoder(out, null);
        new org.apache.avro.generic.GenericDatumWriter<GenericRecord>(schema)
                .write(record, encoder);
        return io.sluice.event.DuplicateRule.digest(out.toByteArray());
    }

    // --- helpers --------------------------------------------------------------------------------

    static final class SimulatedCrash extends Error {}

    private long duplicatesIn(String hour) throws IOException {
        List<GenericRecord> records = landingRecords(hour);
        return records.size()
                - records.stream().map(r -> r.get("event_id").toString()).distinct().count();
    }

    private Map<String, String> landingIdsToPartition() throws IOException {
        Map<String, String> ids = new HashMap<>();
        for (String partition : landed.keySet()) {
            for (GenericRecord r : landingRecords(partition)) {
                ids.put(r.get("event_id").toString(), partition);
            }
        }
        return ids;
    }

    private List<GenericRecord> landingRecords(String partition) throws IOException {
        List<GenericRecord> records = new java.util.ArrayList<>();
        try (Stream<Path> files = Files.list(root.resolve("raw/purchases").resolve(partition))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".avro")).toList()) {
                try (InputStream in = Files.newInputStream(f);
                        DataFileStream<GenericRecord> s =
                                new DataFileStream<>(in, new GenericDatumReader<>())) {
                    s.forEach(records::add);
                }
            }
        }
        return records;
    }

    private void reopenWithLateFile(String hour) throws IOException {
        reopenWithLateFile(hour, "late-1");
    }

    private void reopenWithLateFile(String hour, String id) throws IOException {
        LandingEdits.addLatePurchase(root, purchases, hour, id);
    }

    private void writeOldSchemaFile(Path file, org.apache.avro.Schema v1) throws IOException {
        List<GenericRecord> records = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            records.add(
                    LandingEdits.purchase(
                            v1, "v1-" + i, START.toEpochMilli() + i, "user-v1", 1.5f, "IOS", "FR"));
        }
        LandingEdits.writeAvro(file, v1, records);
    }

    private static Set<String> parquetNames(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Set<String> names = new HashSet<>();
            files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".parquet"))
                    .forEach(names::add);
            return names;
        }
    }

    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> result = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                result.put(
                        f.getFileName().toString(),
                        io.sluice.lake.Sha256.hex(Files.readAllBytes(f)));
            }
        }
        return result;
    }

    private static Map<String, FileTime> modified(Path dir) throws IOException {
        Map<String, FileTime> result = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                result.put(f.getFileName().toString(), Files.getLastModifiedTime(f));
            }
        }
        result.put(".", Files.getLastModifiedTime(dir));
        return result;
    }
}
