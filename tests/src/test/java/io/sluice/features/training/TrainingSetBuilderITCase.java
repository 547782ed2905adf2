package io.sluice.features.training;

import static io.sluice.features.testing.SameValue.assertSameValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.catalog.LakeCatalog;
import io.sluice.compact.HourCompactor;
import io.sluice.compact.testing.CompactedHours;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.ParquetFiles;
import io.sluice.features.testing.SameValue;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.HiveBucketing;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training-set builder over a real warehouse (generated landing hours with duplicates and late
 * events, compacted by {@link HourCompactor}), read back by DuckDB and checked against the
 * brute-force definition over the generator's accepted events.
 */
class TrainingSetBuilderITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    private static final Instant START = Instant.parse("2026-11-20T00:00:00Z");
    private static final long HOUR = 3_600_000;

    @TempDir static Path root;

    static SluiceConfig config;
    static FeatureViewConfig view;
    static TableConfig table;
    static Map<String, List<EventEntry>> events;
    static List<String> entities;

    @BeforeAll
    static void warehouse() throws IOException {
        config = TestConfigs.shop(root, "localhost:9", "ts");
        view = config.featureView("user_purchases").orElseThrow();
        table = config.table(view.source()).orElseThrow();
        GeneratorOptions options = GeneratorOptions.defaults(6_000, 21).withStart(START);
        LandingHours.write(root, table, options, 2, true);
        CompactedHours.compactAll(config, table);
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(List.of(table), options).run(generated::add);
        events = Expected.events(view, table, generated);
        entities = new ArrayList<>(new TreeSet<>(events.keySet()));
    }

    /**
     * The end of the warehouse's last complete, compacted hour: the generator's six hours of events
     * from {@link #START} all land complete and are compacted.
     */
    private static final Instant COVERED = START.plusSeconds(6 * 3600);

    /**
     * A Parquet spine of (user_id, event_timestamp as timestamp-micros, label) rows, at times from
     * an hour before {@link #START} to {@link #COVERED}: what the warehouse holds whole.
     */
    private static Path spine(String name, long seed, int rows) throws IOException {
        return spine(name, seed, rows, COVERED);
    }

    /** As {@link #spine(String, long, int)}, its random times up to {@code until}. */
    private static Path spine(String name, long seed, int rows, Instant until) throws IOException {
        long span = until.toEpochMilli() - (START.toEpochMilli() - HOUR);
        Schema schema = SpineSchemas.userLabel("timestamp-micros");
        assertThat(schema.getField("event_timestamp").schema().getLogicalType())
                .isInstanceOf(LogicalTypes.TimestampMicros.class);
        SplittableRandom random = new SplittableRandom(seed);
        Path file = root.resolve(name);
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            GenericData.Record r = new GenericData.Record(schema);
            String entity = i % 50 == 0 ? "nobody" : entities.get(random.nextInt(entities.size()));
            long t;
            List<EventEntry> own = events.getOrDefault(entity, List.of());
            if (i % 4 == 0 && !own.isEmpty()) {
                // Exactly at one of its events: that event must not count (no leakage).
                t = own.get(random.nextInt(own.size())).ts() * 1000;
            } else {
                t =
                        (START.toEpochMilli() - HOUR + random.nextLong(span)) * 1000
                                + random.nextInt(1000);
            }
            r.put("user_id", entity);
            r.put("event_timestamp", t);
            r.put("label", i);
            records.add(r);
        }
        ParquetFiles.write(file, schema, records);
        return file;
    }

    private static List<FeatureRef> allFeatures() {
        return view.features().stream().map(f -> new FeatureRef(view.name(), f.name())).toList();
    }

    /**
     * Every row's features equal the definition at its exact time, except rows later than the
     * warehouse's last complete hour: asked to mark them, every feature is null and INCOMPLETE.
     */
    @Test
    void shouldEqualTheDefinitionAtEachRowsTimeWithTheSpineUnchanged() throws IOException {
        // Times up to two hours past what the warehouse holds.
        Path spine = spine("spine.parquet", 1, 600, COVERED.plusSeconds(2 * 3600));
        // Request the features in an order other than the config's.
        List<FeatureRef> refs = new ArrayList<>(allFeatures());
        java.util.Collections.reverse(refs);
        TrainingSetResult result =
                new TrainingSetBuilder(config, 2)
                        .build(
                                new TrainingSetRequest(
                                        spine,
                                        refs,
                                        "event_timestamp",
                                        Optional.empty(),
                                        true,
                                        TrainingSetRequest.Incomplete.MARK));
        assertThat(result.reused()).isFalse();
        assertThat(result.rows()).isEqualTo(600);

        ViewDef def = ViewDef.of(view, table);
        try (DuckDb duck = new DuckDb()) {
            List<String> columns =
                    duck
                            .rows("describe select * from read_parquet('" + result.glob() + "')")
                            .stream()
                            .map(r -> (String) r.get("column_name"))
                            .toList();
            List<String> want = new ArrayList<>(List.of("user_id", "event_timestamp", "label"));
            refs.forEach(r -> want.add(r.view() + "__" + r.feature()));
            refs.forEach(r -> want.add(r.view() + "__" + r.feature() + "__status"));
            assertThat(columns).isEqualTo(want);

            List<Map<String, Object>> rows =
                    duck.rows(
                            "select *, epoch_us(event_timestamp) as t_us from read_parquet('"
                                    + result.glob()
                                    + "')");
            assertThat(rows).hasSize(600);
            long nonEmpty = 0;
            long incomplete = 0;
            for (int i = 0; i < rows.size(); i++) {
                Map<String, Object> row = rows.get(i);
                assertThat(row.get("label")).isEqualTo(i); // spine order, labels unchanged
                String entity = (String) row.get("user_id");
                // The row's time exactly, at the spine's microseconds.
                long t = ((Number) row.get("t_us")).longValue() * 1_000;
                boolean past = t > Definition.nanos(COVERED.toEpochMilli());
                incomplete += past ? 1 : 0;
                for (FeatureRef ref : refs) {
                    FeatureDef f = def.feature(ref.feature());
                    FeatureValue expected =
                            past
                                    ? new FeatureValue(null, Status.INCOMPLETE, -1)
                                    : Definition.valueAtNanos(
                                            def, f, t, events.getOrDefault(entity, List.of()));
                    String column = ref.view() + "__" + ref.feature();
                    String what = column + " of " + entity + " at " + Instant.ofEpochSecond(0, t);
                    SameValue.assertCell(what, expected, row, column);
                    if (expected.status() == Status.OK && !"nobody".equals(entity)) {
                        nonEmpty++;
                    }
                }
            }
            assertThat(nonEmpty).isGreaterThan(1_000);
            assertThat(incomplete).isGreaterThan(50);
            assertThat(result.statuses().get(refs.get(0).toString()).get(Status.INCOMPLETE))
                    .isEqualTo(incomplete);
        }
    }

    @Test
    void shouldReuseItsArtifactUntilAnInputChanges() throws IOException {
        Path spine = spine("cached.parquet", 2, 100);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 2);
        TrainingSetRequest request = TrainingSetRequest.of(spine, allFeatures());
        TrainingSetResult first = builder.build(request);
        TrainingSetResult again = builder.build(request);
        assertThat(first.reused()).isFalse();
        assertThat(first.filesRead()).isNotEmpty();
        assertThat(again.reused()).isTrue();
        assertThat(again.filesRead()).isEmpty();
        assertThat(again.digest()).isEqualTo(first.digest());
        assertThat(again.data()).isEqualTo(first.data());
        assertThat(Path.of(again.data())).isDirectory();

        // Another feature list, another spine, or a changed warehouse hour: a new artifact.
        TrainingSetResult fewer =
                builder.build(TrainingSetRequest.of(spine, allFeatures().subList(0, 2)));
        assertThat(fewer.reused()).isFalse();
        assertThat(fewer.digest()).isNotEqualTo(first.digest());
        TrainingSetResult otherSpine =
                builder.build(TrainingSetRequest.of(spine("other.parquet", 3, 100), allFeatures()));
        assertThat(otherSpine.digest()).isNotEqualTo(first.digest());

        // A new snapshot of the table (an empty commit here, a compaction in practice): a new
        // artifact; pinned to the snapshot the first build read, the first one again.
        long read = first.snapshots().get(table.name());
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            catalog.table(table).newAppend().commit();
        }
        TrainingSetResult changed = builder.build(request);
        assertThat(changed.reused()).isFalse();
        assertThat(changed.digest()).isNotEqualTo(first.digest());
        assertThat(changed.snapshots().get(table.name())).isNotEqualTo(read);
        TrainingSetResult pinned = builder.build(request.asOf(Map.of(table.name(), read)));
        assertThat(pinned.reused()).isTrue();
        assertThat(pinned.digest()).isEqualTo(first.digest());
        assertThat(pinned.snapshots()).isEqualTo(first.snapshots());
    }

    @Test
    void shouldSampleTheSameEntitiesEveryTimeReadingOnlyTheirBuckets() throws IOException {
        Path spine = spine("sampled.parquet", 4, 800);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 2);
        Sample sample = new Sample(0.2, 9);
        Set<String> first = sampled(builder, spine, sample);
        Set<String> second = sampled(builder, spine, sample);
        assertThat(first).isNotEmpty().isEqualTo(second);
        assertThat(sampled(builder, spine, new Sample(0.2, 10))).isNotEqualTo(first);

        // 20% of 16 buckets: 3 whole buckets and part of a fourth; no other bucket's file is read.
        List<Integer> buckets = sample.buckets(table.buckets());
        assertThat(buckets).hasSize(4);
        TrainingSetResult result =
                builder.build(
                        new TrainingSetRequest(
                                spine,
                                allFeatures(),
                                "event_timestamp",
                                Optional.of(sample),
                                false),
                        false);
        assertThat(result.filesRead()).isNotEmpty();
        for (java.net.URI file : result.filesRead()) {
            assertThat(buckets)
                    .contains(
                            Integer.parseInt(
                                    Path.of(file).getFileName().toString().substring(0, 6)));
        }
        for (String entity : first) {
            assertThat(buckets).contains(HiveBucketing.bucket(entity, table.buckets()));
        }
        // Every spine row of a selected entity is kept.
        try (DuckDb duck = new DuckDb()) {
            long rows =
                    duck.count(
                            "select count(*) from read_parquet('"
                                    + spine
                                    + "') where user_id in ('"
                                    + String.join("','", first)
                                    + "')");
            assertThat(result.rows()).isEqualTo(rows);
        }
    }

    private static Set<String> sampled(TrainingSetBuilder builder, Path spine, Sample sample)
            throws IOException {
        TrainingSetResult result =
                builder.build(
                        new TrainingSetRequest(
                                spine,
                                allFeatures(),
                                "event_timestamp",
                                Optional.of(sample),
                                false));
        Set<String> out = new HashSet<>();
        try (DuckDb duck = new DuckDb()) {
            duck.rows("select distinct user_id from read_parquet('" + result.glob() + "')")
                    .forEach(r -> out.add((String) r.get("user_id")));
        }
        return out;
    }

    @Test
    void shouldReadACsvSpineWithAnotherTimeColumn() throws IOException {
        String entity = entities.get(0);
        EventEntry event = events.get(entity).get(0);
        Path csv = root.resolve("spine.csv");
        Files.writeString(
                csv,
                "user_id,label,ts,clicks,score,zip,id\n"
                        + entity
                        + ",yes,"
                        + Instant.ofEpochMilli(event.ts())
                        + ",3,0.5,02134,12345678901234567890\n"
                        + entity
                        + ",no,"
                        + Instant.ofEpochMilli(event.ts() + 1)
                                .toString()
                                .replace('T', ' ')
                                .replace("Z", "")
                        + ",,-2,10001,7\n");
        FeatureRef count = new FeatureRef(view.name(), "purchases_1h");
        TrainingSetResult result =
                new TrainingSetBuilder(config, 1)
                        .build(
                                new TrainingSetRequest(
                                        csv, List.of(count), "ts", Optional.empty(), false));
        ViewDef def = ViewDef.of(view, table);
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> rows =
                    duck.rows("select * from read_parquet('" + result.glob() + "')");
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0).get("label")).isEqualTo("yes");
            // Numbers stay numbers; digits with leading zeros or beyond a long stay text, and so
            // do the key and time columns.
            Map<String, Object> types = new java.util.HashMap<>();
            duck.rows("describe select * from read_parquet('" + result.glob() + "')")
                    .forEach(r -> types.put((String) r.get("column_name"), r.get("column_type")));
            assertThat(types)
                    .containsEntry("user_id", "VARCHAR")
                    .containsEntry("label", "VARCHAR")
                    .containsEntry("ts", "VARCHAR")
                    .containsEntry("clicks", "BIGINT")
                    .containsEntry("score", "DOUBLE")
                    .containsEntry("zip", "VARCHAR")
                    .containsEntry("id", "VARCHAR");
            assertThat(rows.get(0).get("clicks")).isEqualTo(3L);
            assertThat(rows.get(1).get("clicks")).isNull();
            assertThat(rows.get(1).get("score")).isEqualTo(-2.0);
            assertThat(rows.get(0).get("zip")).isEqualTo("02134");
            for (int i = 0; i < 2; i++) {
                Object want =
                        Definition.value(
                                        def,
                                        def.feature("purchases_1h"),
                                        event.ts() + i,
                                        events.get(entity))
                                .value();
                assertSameValue("row " + i, want, rows.get(i).get("user_purchases__purchases_1h"));
            }
            // The event at exactly t is counted only from the next millisecond on; before it, an
            // entity with no earlier event in retention is not known at all (null, NOT_FOUND).
            Object before = rows.get(0).get("user_purchases__purchases_1h");
            assertThat(((Number) rows.get(1).get("user_purchases__purchases_1h")).longValue())
                    .isGreaterThan(before == null ? 0 : ((Number) before).longValue());
        }
    }

    @Test
    void shouldNameWhatIsWrongWithARequest() throws IOException {
        Path spine = spine("errors.parquet", 5, 10);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 1);
        assertThatThrownBy(
                        () ->
                                builder.build(
                                        new TrainingSetRequest(
                                                spine,
                                                allFeatures(),
                                                "label_time",
                                                Optional.empty(),
                                                false)))
                .hasMessageContaining("label_time")
                .hasMessageContaining("--timestamp-column");
        assertThatThrownBy(
                        () ->
                                builder.build(
                                        TrainingSetRequest.of(
                                                spine,
                                                List.of(FeatureRef.parse("user_purchases:nope")))))
                .hasMessageContaining("nope")
                .hasMessageContaining("spend_24h");
        assertThatThrownBy(
                        () ->
                                builder.build(
                                        TrainingSetRequest.of(
                                                spine, List.of(FeatureRef.parse("nobody:x")))))
                .hasMessageContaining("'nobody'");
        Path csv = root.resolve("no-entity.csv");
        Files.writeString(csv, "customer,event_timestamp\nu1,2026-11-20T01:00:00Z\n");
        assertThatThrownBy(() -> builder.build(TrainingSetRequest.of(csv, allFeatures())))
                .hasMessageContaining("user_id")
                .hasMessageContaining("customer");
        Path bad = root.resolve("bad-time.csv");
        Files.writeString(bad, "user_id,event_timestamp\nu1,yesterday\n");
        assertThatThrownBy(() -> builder.build(TrainingSetRequest.of(bad, allFeatures())))
                .hasMessageContaining("row 1")
                .hasMessageContaining("yesterday");
    }

    @Test
    void shouldRefuseHoursThatAreOpenOrNotCompacted() throws IOException {
        Path spine = spine("open.parquet", 6, 50);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 1);
        String hour = "dt=2026-11-20/hr=02";
        Path rawManifest =
                root.resolve("raw").resolve(table.name()).resolve(hour).resolve(HourManifest.NAME);
        byte[] manifest = Files.readAllBytes(rawManifest);
        try {
            Files.delete(rawManifest);
            assertThatThrownBy(() -> builder.build(TrainingSetRequest.of(spine, allFeatures())))
                    .isInstanceOf(IncompleteDataException.class)
                    .hasMessageContaining(hour)
                    .hasMessageContaining("open");
            Files.write(rawManifest, new String(manifest).replace("{", "{ ").getBytes());
            assertThatThrownBy(() -> builder.build(TrainingSetRequest.of(spine, allFeatures())))
                    .hasMessageContaining(hour)
                    .hasMessageContaining("sluice compact");
        } finally {
            Files.write(rawManifest, manifest);
        }
        // Published but not committed (a compaction that died between the two): the catalog's
        // table lacks the hour's files, and the readers, which plan from it, take the hour as not
        // compacted until a compact run commits it.
        try (LakeCatalog catalog = LakeCatalog.open(config)) {
            Table iceberg = catalog.table(table);
            long committed = iceberg.currentSnapshot().snapshotId();
            long start = HourPartitioner.parse(hour) * 1000;
            iceberg.newDelete()
                    .deleteFromRowFilter(
                            Expressions.and(
                                    Expressions.greaterThanOrEqual(table.eventTime(), start),
                                    Expressions.lessThan(
                                            table.eventTime(),
                                            start + HourPartitioner.hourMillis() * 1000)))
                    .commit();
            try {
                assertThatThrownBy(() -> builder.build(TrainingSetRequest.of(spine, allFeatures())))
                        .isInstanceOf(IncompleteDataException.class)
                        .hasMessageContaining(
                                "hour "
                                        + hour
                                        + " is compacted but not committed to the catalog's"
                                        + " table");
            } finally {
                iceberg.manageSnapshots().rollbackTo(committed).commit();
            }
        }
    }
}
