package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.compact.testing.CompactedHours;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
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
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A training set joining views of two entities: user_purchases (keyed by user_id) and the test
 * config's item_sales (keyed by item_id, over a table of the same Purchase events keyed by item),
 * over a real compacted warehouse. Each view reads the spine's column named as its entity and
 * equals the brute-force definition over that entity's events; a row with a null or empty key in a
 * view's column is NOT_FOUND in that view only.
 */
class TrainingSetEntitiesITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    private static final Instant START = Instant.parse("2026-11-20T00:00:00Z");
    private static final long HOUR = 3_600_000;
    private static final long MS = 1_000_000; // nanos

    @TempDir static Path root;

    static SluiceConfig config;
    static final Map<String, ViewDef> defs = new HashMap<>();
    static final Map<String, String> entity = new HashMap<>(); // view -> spine column
    static final Map<String, Map<String, List<EventEntry>>> events = new HashMap<>();
    static List<String> users;
    static List<String> items;

    @BeforeAll
    static void warehouse() throws IOException {
        config = TestConfigs.shopWithItems(root, "localhost:9", "te");
        GeneratorOptions options = GeneratorOptions.defaults(4_000, 5).withStart(START);
        for (String name : List.of("user_purchases", TestConfigs.ITEM_VIEW)) {
            FeatureViewConfig view = config.featureView(name).orElseThrow();
            TableConfig table = config.table(view.source()).orElseThrow();
            // The same seeded purchases, keyed by the table's key (user_id, item_id).
            List<GeneratedRecord> generated = new ArrayList<>();
            new Generator(List.of(table), options).run(generated::add);
            LandingHours.write(root, table, generated, 1, false);
            CompactedHours.compactAll(config, table);
            defs.put(name, ViewDef.of(view, table));
            entity.put(name, view.entity());
            events.put(name, Expected.events(view, table, generated));
        }
        users = new ArrayList<>(new TreeSet<>(events.get("user_purchases").keySet()));
        items = new ArrayList<>(new TreeSet<>(events.get(TestConfigs.ITEM_VIEW).keySet()));
        assertThat(entity.get(TestConfigs.ITEM_VIEW)).isEqualTo("item_id");
    }

    /** One spine row: a user, an item (either may be null or empty) and a time in epoch nanos. */
    record Row(String user, String item, long nanos) {
        String key(String column) {
            return column.equals("user_id") ? user : item;
        }
    }

    /** Rows within what the warehouse holds: its six hours, and the hour before them. */
    private static List<Row> rows(long seed, int n) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Row> rows = new ArrayList<>();
        long from = START.toEpochMilli() - HOUR;
        long until = START.toEpochMilli() + 6 * HOUR;
        List<EventEntry> itemEvents = new ArrayList<>();
        events.get(TestConfigs.ITEM_VIEW).values().forEach(itemEvents::addAll);
        for (int i = 0; i < n; i++) {
            String user = users.get(random.nextInt(users.size()));
            String item = items.get(random.nextInt(items.size()));
            long t = (from + random.nextLong(until - from)) * MS + random.nextInt(1000) * 1000L;
            if (i % 3 == 0) {
                // Just after an item's event: its window is not empty.
                EventEntry e = itemEvents.get(random.nextInt(itemEvents.size()));
                for (var byItem : events.get(TestConfigs.ITEM_VIEW).entrySet()) {
                    if (byItem.getValue().contains(e)) {
                        item = byItem.getKey();
                    }
                }
                t = Math.min((e.ts() + random.nextLong(HOUR)) * MS, until * MS);
            }
            if (i % 10 == 1) {
                item = null;
            } else if (i % 13 == 2) {
                item = "";
            } else if (i % 17 == 3) {
                item = "no-such-item";
            } else if (i % 19 == 4) {
                user = null;
            } else if (i % 23 == 5) {
                user = "";
            }
            rows.add(new Row(user, item, t));
        }
        return rows;
    }

    private static Path spine(String name, List<Row> rows) throws IOException {
        Schema schema =
                new Schema.Parser()
                        .parse(
                                "{\"type\":\"record\",\"name\":\"spine\",\"fields\":["
                                        + "{\"name\":\"user_id\",\"type\":[\"null\",\"string\"]},"
                                        + "{\"name\":\"item_id\",\"type\":[\"null\",\"string\"]},"
                                        + "{\"name\":\"event_timestamp\",\"type\":{\"type\":"
                                        + "\"long\",\"logicalType\":\"timestamp-micros\"}},"
                                        + "{\"name\":\"label\",\"type\":\"int\"}]}");
        Path file = root.resolve(name);
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            GenericData.Record r = new GenericData.Record(schema);
            r.put("user_id", rows.get(i).user());
            r.put("item_id", rows.get(i).item());
            r.put("event_timestamp", rows.get(i).nanos() / 1000);
            r.put("label", i);
            records.add(r);
        }
        ParquetFiles.write(file, schema, records);
        return file;
    }

    /** Features of both views, interleaved. */
    private static final List<FeatureRef> REFS =
            List.of(
                    new FeatureRef(TestConfigs.ITEM_VIEW, "sales_1h"),
                    new FeatureRef("user_purchases", "purchases_1h"),
                    new FeatureRef(TestConfigs.ITEM_VIEW, "revenue_24h"),
                    new FeatureRef("user_purchases", "spend_24h"),
                    new FeatureRef(TestConfigs.ITEM_VIEW, "last_buyer_country"),
                    new FeatureRef("user_purchases", "last_category"));

    @Test
    void shouldReadEachViewsOwnEntityColumnAndEqualTheDefinitionPerView() throws IOException {
        List<Row> rows = rows(1, 600);
        TrainingSetResult result =
                new TrainingSetBuilder(config, 2)
                        .build(
                                new TrainingSetRequest(
                                        spine("two.parquet", rows),
                                        REFS,
                                        "event_timestamp",
                                        Optional.empty(),
                                        true));
        assertThat(result.rows()).isEqualTo(rows.size());
        // Both views' tables were read.
        assertThat(result.filesRead())
                .anyMatch(f -> f.toString().contains("/warehouse/purchases/"))
                .anyMatch(f -> f.toString().contains("/warehouse/item_purchases/"));
        Map<String, Map<Status, Long>> seen = new HashMap<>();
        try (DuckDb duck = new DuckDb()) {
            List<String> columns =
                    duck
                            .rows("describe select * from read_parquet('" + result.glob() + "')")
                            .stream()
                            .map(r -> (String) r.get("column_name"))
                            .toList();
            List<String> want =
                    new ArrayList<>(List.of("user_id", "item_id", "event_timestamp", "label"));
            REFS.forEach(r -> want.add(r.view() + "__" + r.feature()));
            REFS.forEach(r -> want.add(r.view() + "__" + r.feature() + "__status"));
            assertThat(columns).isEqualTo(want);

            List<Map<String, Object>> out =
                    duck.rows(
                            "select *, epoch_us(event_timestamp) as t_us from read_parquet('"
                                    + result.glob()
                                    + "')");
            assertThat(out).hasSize(rows.size());
            for (int i = 0; i < out.size(); i++) {
                Map<String, Object> row = out.get(i);
                Row spineRow = rows.get(i);
                assertThat(row.get("label")).isEqualTo(i);
                assertThat(row.get("user_id")).isEqualTo(spineRow.user());
                assertThat(row.get("item_id")).isEqualTo(spineRow.item());
                long t = ((Number) row.get("t_us")).longValue() * 1000;
                assertThat(t).isEqualTo(spineRow.nanos());
                for (FeatureRef ref : REFS) {
                    ViewDef def = defs.get(ref.view());
                    String key = spineRow.key(entity.get(ref.view()));
                    FeatureValue expected =
                            key == null || key.isEmpty()
                                    ? new FeatureValue(null, Status.NOT_FOUND, -1)
                                    : Definition.valueAtNanos(
                                            def,
                                            def.feature(ref.feature()),
                                            t,
                                            events.get(ref.view()).getOrDefault(key, List.of()));
                    String column = ref.view() + "__" + ref.feature();
                    String what = column + " of " + key + " at " + Instant.ofEpochSecond(0, t);
                    SameValue.assertCell(what, expected, row, column);
                    seen.computeIfAbsent(ref.view(), v -> new HashMap<>())
                            .merge(expected.status(), 1L, Long::sum);
                }
            }
        }
        // Both views have values computed from events and NOT_FOUND rows (empty keys among them).
        for (String view : List.of("user_purchases", TestConfigs.ITEM_VIEW)) {
            assertThat(seen.get(view).get(Status.OK)).as(view).isGreaterThan(200);
            assertThat(seen.get(view).get(Status.NOT_FOUND)).as(view).isGreaterThan(30);
        }
    }

    @Test
    void shouldBuildEachEntitysTilesOncePerViewWhateverTheSpinesOrder() throws Exception {
        // 25 users and 25 items, each many times, at random times, in random order.
        List<Row> rows = new ArrayList<>();
        for (Row r : rows(2, 1_500)) {
            rows.add(new Row(fewOf(r.user(), users), fewOf(r.item(), items), r.nanos()));
        }
        Path spine = spine("shuffled.parquet", rows);
        TrainingPlan plan =
                TrainingPlan.of(
                        config,
                        new TrainingSetRequest(
                                spine, REFS, "event_timestamp", Optional.empty(), true));
        Path parts = Files.createDirectories(root.resolve("shuffled-parts"));
        List<long[]> progress = new java.util.concurrent.CopyOnWriteArrayList<>();
        TrainingSetJob.Outcome outcome =
                TrainingSetJob.run(
                        org.apache.flink.streaming.api.environment.StreamExecutionEnvironment
                                .getExecutionEnvironment(),
                        plan,
                        spine,
                        true,
                        parts.toUri(),
                        TrainingSetBuilder.CHUNK_ROWS,
                        (done, total) -> progress.add(new long[] {done, total}));
        assertThat(outcome.rows()).isEqualTo(rows.size());
        // Progress: from none to every row of both passes (one per entity), never backwards.
        long passes = 2;
        assertThat(progress.get(0)).containsExactly(0, passes * rows.size());
        assertThat(progress.get(progress.size() - 1))
                .containsExactly(passes * rows.size(), passes * rows.size());
        for (int i = 1; i < progress.size(); i++) {
            assertThat(progress.get(i)[0]).isBetween(progress.get(i - 1)[0], passes * rows.size());
        }
        long entities = 0;
        try (DuckDb duck = new DuckDb()) {
            for (String view : List.of("user_purchases", TestConfigs.ITEM_VIEW)) {
                String column = entity.get(view);
                String status =
                        view
                                + "__"
                                + (view.equals("user_purchases") ? "purchases_1h" : "sales_1h")
                                + "__status";
                entities +=
                        ((Number)
                                        duck.rows(
                                                        "select count(distinct "
                                                                + column
                                                                + ") n from read_parquet('"
                                                                + parts.resolve("*.parquet")
                                                                + "') where "
                                                                + column
                                                                + " <> '' and "
                                                                + status
                                                                + " <> 'INCOMPLETE'")
                                                .get(0)
                                                .get("n"))
                                .longValue();
            }
        }
        // One chunk per bucket, so each (view, entity) once: a pass whose rows were not grouped
        // by entity would build an entity's tiles again for each run of its rows.
        assertThat(entities).isBetween(40L, 60L);
        assertThat(outcome.entities()).isEqualTo(entities);
    }

    /** One of the first 25 of {@code known} for a key among them; other keys as they are. */
    private static String fewOf(String key, List<String> known) {
        return key == null || !known.contains(key)
                ? key
                : known.get(Math.floorMod(key.hashCode(), 25));
    }

    @Test
    void shouldNameTheMissingEntityColumnAndItsView() throws IOException {
        Path csv = root.resolve("users-only.csv");
        Files.writeString(
                csv, "user_id,event_timestamp\n" + users.get(0) + ",2026-11-20T03:00:00Z\n");
        assertThatThrownBy(
                        () ->
                                new TrainingSetBuilder(config, 1)
                                        .build(TrainingSetRequest.of(csv, REFS)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no column 'item_id'")
                .hasMessageContaining("the entity of view " + TestConfigs.ITEM_VIEW)
                .hasMessageContaining("user_id, event_timestamp");
    }

    @Test
    void shouldGiveNotFoundForAnEmptyCsvKeyInThatViewOnly() throws IOException {
        String user = users.get(0);
        EventEntry first = events.get("user_purchases").get(user).get(0);
        Instant t = Instant.ofEpochMilli(first.ts() + 1);
        Path csv = root.resolve("empty-item.csv");
        Files.writeString(csv, "user_id,item_id,event_timestamp\n" + user + ",," + t + "\n");
        TrainingSetResult result =
                new TrainingSetBuilder(config, 1)
                        .build(
                                new TrainingSetRequest(
                                        csv, REFS, "event_timestamp", Optional.empty(), true));
        try (DuckDb duck = new DuckDb()) {
            Map<String, Object> row =
                    duck.rows("select * from read_parquet('" + result.glob() + "')").get(0);
            assertThat(row.get("item_sales__sales_1h__status")).isEqualTo("NOT_FOUND");
            assertThat(row.get("item_sales__sales_1h")).isNull();
            assertThat(row.get("user_purchases__purchases_1h__status")).isEqualTo("OK");
            assertThat(((Number) row.get("user_purchases__purchases_1h")).longValue())
                    .isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void shouldSampleTheFirstViewsEntities() throws IOException {
        List<Row> rows = rows(2, 400);
        Sample sample = new Sample(0.25, 3);
        TableConfig itemTable = config.table("item_purchases").orElseThrow();
        TrainingSetResult result =
                new TrainingSetBuilder(config, 2)
                        .build(
                                new TrainingSetRequest(
                                        spine("sampled.parquet", rows),
                                        REFS,
                                        "event_timestamp",
                                        Optional.of(sample),
                                        false),
                                false);
        Sample.Selector selector = sample.selector(itemTable.buckets());
        long want =
                rows.stream()
                        .filter(
                                r ->
                                        r.item() != null
                                                && !r.item().isEmpty()
                                                && selector.selects(
                                                        r.item(),
                                                        HiveBucketing.bucket(
                                                                r.item(), itemTable.buckets())))
                        .count();
        assertThat(result.rows()).isEqualTo(want).isPositive().isLessThan(rows.size());
        org.apache.flink.util.FileUtils.deleteDirectory(
                Path.of(result.data()).getParent().toFile());
    }
}
