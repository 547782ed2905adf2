package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.SameValue;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.testing.DuckDb;
import io.sluice.testing.Landing;
import io.sluice.testing.WarehouseCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice demo} end to end, with its output read back independently. */
class DemoITCase {

    @TempDir Path dir;

    @Test
    void shouldRunTheWholePipelineAndReportWhatLanded() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        var summary =
                new Demo(dir, 3_000, 7, 2, new PrintStream(progress, true, StandardCharsets.UTF_8))
                        .run();

        assertThat(summary.get("ok")).isEqualTo(true);
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains(
                        "generate:",
                        "ingest:",
                        "compact:",
                        "features:",
                        "check:",
                        "training-set:",
                        "verify:",
                        "serve: POST /get-online-features",
                        "serve: feature server stopped");
        JsonNode json = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        for (String field :
                List.of(
                        "events_generated",
                        "events_invalid",
                        "events_duplicate",
                        "raw_rows",
                        "dlq_rows",
                        "warehouse_rows",
                        "hours_complete",
                        "online_entities",
                        "consistency_checked",
                        "consistency_mismatches",
                        "training_set_rows")) {
            assertThat(json.has(field)).as(field).isTrue();
        }
        assertThat(json.get("events_generated").asLong()).isEqualTo(3_000);
        assertThat(json.get("training_set_rows").asLong()).isEqualTo(1_000);
        assertThat(dir.resolve("training_set.parquet")).isRegularFile();

        // It served the online store over HTTP and the answer equals the training set's row.
        assertThat(httpAnswerEqualsTrainingSetRow(json.get("http_check")))
                .isGreaterThanOrEqualTo(5);

        // The written config is the one it ran with, and finds the data it wrote.
        SluiceConfig config = SluiceConfig.load(dir.resolve("sluice.yaml"));
        long rows = 0;
        Set<String> ids = new HashSet<>();
        for (TableConfig t : config.tables()) {
            for (Landing.Row row : Landing.rows(Path.of(config.tablePath("raw", t.name())))) {
                rows++;
                ids.add(t.name() + "/" + row.record().get("event_id"));
            }
        }
        assertThat(rows).isEqualTo(json.get("raw_rows").asLong()).isEqualTo(ids.size());
        assertThat(json.get("events_generated").asLong())
                .isEqualTo(
                        json.get("raw_rows").asLong()
                                + json.get("events_duplicate").asLong()
                                + json.get("dlq_rows").asLong());
        assertThat(json.get("hours_complete").asLong()).isPositive();

        // The warehouse, read by DuckDB and checked against Hive's own hash, holds the same ids.
        Set<String> warehouseIds = new HashSet<>();
        for (TableConfig t : config.tables()) {
            WarehouseCheck.verify(Path.of(config.tablePath("warehouse", t.name())), t)
                    .keySet()
                    .forEach(id -> warehouseIds.add(t.name() + "/" + id));
        }
        assertThat(warehouseIds).isEqualTo(ids);
        assertThat(json.get("warehouse_rows").asLong()).isEqualTo(ids.size());
        assertThat(Files.exists(dir.resolve("raw"))).isTrue();
        assertThat(json.get("online_entities").asLong())
                .isEqualTo(json.get("entities_generated").asLong())
                .isPositive();

        // `sluice get --json` against value(f, e, t) computed in SQL over the warehouse.
        assertThat(onlineAgreesWithWarehouseSql(config)).isGreaterThan(500);

        // A training set for a spine it has never seen equals SQL over the warehouse and the
        // online store read at each row's time; a repeat reuses it.
        assertThat(
                        trainingSetAgreesWithSqlOnlineAndDefinition(
                                config, Instant.parse(json.get("event_time_start").asText())))
                .isGreaterThan(2_000);

        // Every README query example returns rows on the demo's output, and DuckDB runs the view
        // `sluice ddl --dialect duckdb` prints.
        assertThat(ReadmeExamples.runDuckDb(dir)).isGreaterThanOrEqualTo(5);
        assertThat(ReadmeExamples.checkPaths(dir)).isGreaterThanOrEqualTo(3);
        duckDbRunsItsDdl(dir.resolve("sluice.yaml"), json.get("warehouse_rows").asLong());

        // The consistency check passes on the demo, and catches an online store that lost tiles.
        assertThat(json.get("consistency_checked").asLong()).isGreaterThanOrEqualTo(1_000);
        assertThat(json.get("consistency_mismatches").asLong()).isZero();
        String configFile = dir.resolve("sluice.yaml").toString();
        assertThat(Main.run("check", "--config", configFile, "--samples", "20")).isZero();
        try (var db =
                        java.sql.DriverManager.getConnection(
                                "jdbc:sqlite:" + dir.resolve("online.db"));
                var st = db.createStatement()) {
            assertThat(st.executeUpdate("DELETE FROM tiles WHERE level = 1")).isPositive();
        }
        assertThat(Main.run("check", "--config", configFile, "--samples", "20")).isEqualTo(1);

        // Table upkeep on a fresh lake: within the 7-day retention nothing expires or is orphaned,
        // and each view's feature log becomes an Iceberg table over the log's files.
        List<String> maintained = cli("maintain", "--config", configFile).lines().toList();
        assertThat(maintained.subList(0, 3))
                .containsExactly(
                        "maintain: page_views: 0 snapshots expired (older than 7d), 0 orphan"
                                + " metadata files removed",
                        "maintain: add_to_cart: 0 snapshots expired (older than 7d), 0 orphan"
                                + " metadata files removed",
                        "maintain: purchases: 0 snapshots expired (older than 7d), 0 orphan"
                                + " metadata files removed");
        assertThat(maintained.subList(3, maintained.size()))
                .hasSize(config.featureViews().size())
                .allMatch(
                        line ->
                                line.matches(
                                        "maintain: feature log \\w+: [1-9]\\d* files added, 0"
                                                + " removed \\(table sluice\\.feature_log_\\w+\\);"
                                                + " 0 snapshots expired, 0 orphan metadata files"
                                                + " removed"),
                        "a feature log synced into its table");
        assertThat(featureLogTablesMatchTheLog(config)).isPositive();

        // The same demo with the lake in a bucket of the in-process S3 server, its objects plain
        // files under DIR/s3/lake/: the same figures, and the same ids in the right buckets,
        // sorted, read back from those files.
        Path s3Dir = dir.resolve("on-s3");
        var onS3 =
                new Demo(
                                s3Dir,
                                true,
                                3_000,
                                7,
                                2,
                                new PrintStream(progress, true, StandardCharsets.UTF_8))
                        .run();
        assertThat(onS3.get("ok")).isEqualTo(true);
        JsonNode s3Json = new ObjectMapper().readTree(s3Dir.resolve("summary.json").toFile());
        assertThat(json.get("storage").asText()).isEqualTo("file");
        assertThat(s3Json.get("storage").asText()).isEqualTo("s3");
        for (String field :
                List.of(
                        "events_valid",
                        "raw_rows",
                        "dlq_rows",
                        "hours_landed",
                        "hours_complete",
                        "warehouse_rows",
                        "warehouse_hours",
                        "warehouse_duplicates_removed",
                        "online_entities",
                        "consistency_checked",
                        "consistency_mismatches",
                        "training_set_rows",
                        "iceberg_tables",
                        "iceberg_rows",
                        "iceberg_snapshots")) {
            assertThat(s3Json.get(field)).as(field).isEqualTo(json.get(field));
        }
        Path lake = s3Dir.resolve("s3").resolve(Demo.BUCKET).resolve(Demo.PREFIX);
        Set<String> s3Ids = new HashSet<>();
        for (TableConfig t : config.tables()) {
            WarehouseCheck.verify(lake.resolve("warehouse").resolve(t.name()), t)
                    .keySet()
                    .forEach(id -> s3Ids.add(t.name() + "/" + id));
            assertThat(Landing.rows(lake.resolve("raw").resolve(t.name())))
                    .extracting(r -> t.name() + "/" + r.record().get("event_id"))
                    .allMatch(ids::contains);
        }
        assertThat(s3Ids).isEqualTo(ids);
        // The catalog on S3: its tables' metadata objects are in the bucket, beside the data.
        assertThat(s3Json.get("iceberg_matches_warehouse").asBoolean()).isTrue();
        assertThat(lake.resolve("warehouse/_iceberg/purchases/metadata"))
                .isDirectoryContaining(p -> p.getFileName().toString().endsWith(".metadata.json"));
    }

    /**
     * Each view's feature log table holds exactly the log's committed Parquet files, and as many
     * rows as DuckDB reads from them; returns the rows.
     */
    private static long featureLogTablesMatchTheLog(SluiceConfig config) throws Exception {
        long rows = 0;
        try (io.sluice.catalog.LakeCatalog catalog = io.sluice.catalog.LakeCatalog.open(config);
                DuckDb duck = new DuckDb()) {
            for (FeatureViewConfig view : config.featureViews()) {
                var table =
                        catalog.catalog()
                                .loadTable(catalog.identifier("feature_log_" + view.name()));
                Set<String> files = new HashSet<>();
                long tableRows = 0;
                try (var tasks = table.newScan().planFiles()) {
                    for (var task : tasks) {
                        files.add(Path.of(java.net.URI.create(task.file().location())).toString());
                        tableRows += task.file().recordCount();
                    }
                }
                Path log = Path.of(config.tablePath("features", view.name()));
                Set<String> onDisk = new HashSet<>();
                try (var walk = Files.walk(log)) {
                    walk.filter(
                                    f ->
                                            f.toString().endsWith(".parquet")
                                                    && !f.getFileName().toString().startsWith("."))
                            .forEach(f -> onDisk.add(f.toString()));
                }
                assertThat(files).as(view.name()).isNotEmpty().isEqualTo(onDisk);
                assertThat(tableRows)
                        .as(view.name())
                        .isEqualTo(
                                duck.count(
                                        "select count(*) from read_parquet('"
                                                + log
                                                + "/*/*/*.parquet')"));
                rows += tableRows;
            }
        }
        return rows;
    }

    private static void duckDbRunsItsDdl(Path config, long warehouseRows) {
        long rows = 0;
        for (String table : List.of("page_views", "add_to_cart", "purchases")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream old = System.out;
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                assertThat(
                                Main.run(
                                        "ddl",
                                        "--config",
                                        config.toString(),
                                        "--dialect",
                                        "duckdb",
                                        table))
                        .isZero();
            } finally {
                System.setOut(old);
            }
            try (DuckDb duck = new DuckDb()) {
                duck.execute(out.toString(StandardCharsets.UTF_8));
                rows += duck.count("select count(*) from " + table);
            }
        }
        assertThat(rows).isEqualTo(warehouseRows);
    }

    /**
     * The demo's HTTP check matched, and the values it reports the server answered are, read back
     * independently by DuckDB, the training set's at the request's entity and time.
     */
    private int httpAnswerEqualsTrainingSetRow(JsonNode check) throws Exception {
        assertThat(check.get("ok").asBoolean()).as(check.toString()).isTrue();
        assertThat(check.get("http_status").asInt()).isEqualTo(200);
        assertThat(check.get("mismatches").asInt()).isZero();
        JsonNode request = check.get("request");
        assertThat(request.get("full_feature_names").asBoolean()).isTrue();
        List<String> features = new ArrayList<>();
        request.get("features").forEach(f -> features.add(f.asText()));
        assertThat(check.get("compared").asInt()).isEqualTo(features.size());
        assertThat(features.stream().map(f -> f.substring(0, f.indexOf(':'))).distinct())
                .hasSize(1);
        String entity = request.get("entities").get("user_id").get(0).asText();
        String at = request.get("at").asText();
        assertThat(Instant.parse(at)).isBefore(Instant.now());
        List<Map<String, Object>> rows;
        try (DuckDb duck = new DuckDb()) {
            rows =
                    duck.rows(
                            "select * from read_parquet('"
                                    + dir.resolve("training_set.parquet")
                                    + "') where user_id = '"
                                    + entity
                                    + "' and event_timestamp = '"
                                    + at
                                    + "'");
        }
        assertThat(rows).as(entity + " at " + at).hasSize(1);
        int present = 0;
        for (String feature : features) {
            JsonNode reported = check.get("features").get(feature);
            assertThat(reported.get("match").asBoolean()).as(feature).isTrue();
            JsonNode http = reported.get("http");
            Object got =
                    http.isNull()
                            ? null
                            : http.isIntegralNumber()
                                    ? (Object) http.longValue()
                                    : http.isNumber() ? (Object) http.doubleValue() : http.asText();
            SameValue.assertSameValue(
                    feature + " of " + entity + " at " + at,
                    rows.get(0).get(feature.replace(":", "__")),
                    got);
            if (got != null) {
                present++;
            }
        }
        // The row was chosen for having values, not only counts of an empty window.
        assertThat(present).isGreaterThan(features.size() / 2);
        return features.size();
    }

    private long onlineAgreesWithWarehouseSql(SluiceConfig config) throws Exception {
        long compared = 0;
        SplittableRandom random = new SplittableRandom(3);
        long now = System.currentTimeMillis();
        try (DuckDb duck = new DuckDb()) {
            SqlFeatures sql = new SqlFeatures(duck, dir.resolve("warehouse"));
            for (FeatureViewConfig view : config.featureViews()) {
                TableConfig table = config.table(view.source()).orElseThrow();
                List<String> users =
                        duck
                                .rows(
                                        "select distinct "
                                                + table.key()
                                                + " as k from read_parquet('"
                                                + dir.resolve("warehouse").resolve(table.name())
                                                + "/*/*/*.parquet') order by 1")
                                .stream()
                                .map(r -> (String) r.get("k"))
                                .toList();
                List<String> sample = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    sample.add(users.get(random.nextInt(users.size())));
                }
                String features =
                        String.join(
                                ",",
                                view.features().stream()
                                        .map(f -> view.name() + ":" + f.name())
                                        .toList());
                // Times the features job has written the view through; after that, INCOMPLETE.
                long written;
                try (OnlineStore store = OnlineStores.open(config.online())) {
                    written = store.writtenThrough(view.name()).orElseThrow();
                }
                assertThat(written).isLessThan(now);
                JsonNode past =
                        new ObjectMapper()
                                .readTree(
                                        getAt(features, sample, Instant.ofEpochMilli(written + 2)));
                assertThat(past.findValuesAsText("status")).containsOnly("INCOMPLETE");
                for (int q = 0; q < 4; q++) {
                    long at = written + 1 - random.nextLong(7 * 3_600_000L);
                    JsonNode online =
                            new ObjectMapper()
                                    .readTree(getAt(features, sample, Instant.ofEpochMilli(at)));
                    for (JsonNode entity : online.get("entities")) {
                        String user = entity.get("entity").asText();
                        boolean known = sql.known(view, table, user, at);
                        for (FeatureConfig f : view.features()) {
                            JsonNode got = entity.get("features").get(view.name() + ":" + f.name());
                            Map<String, Object> want = sql.value(view, table, f, user, at);
                            String what =
                                    view.name() + ":" + f.name() + " of " + user + " at " + at;
                            Object v = want.get("v");
                            if (!known) {
                                // No event in the view's retention: unknown, counts too.
                                assertThat(got.get("value").isNull()).as(what).isTrue();
                                assertThat(got.get("status").asText())
                                        .as(what)
                                        .isEqualTo("NOT_FOUND");
                            } else if (v == null) {
                                assertThat(got.get("value").isNull()).as(what).isTrue();
                                assertThat(got.get("status").asText())
                                        .as(what)
                                        .isEqualTo("EMPTY_WINDOW");
                            } else if (v instanceof Number n
                                    && !(v instanceof Long)
                                    && !(v instanceof java.math.BigInteger)
                                    && !(v instanceof Integer)) {
                                double d = n.doubleValue();
                                assertThat(got.get("value").asDouble())
                                        .as(what)
                                        .isCloseTo(
                                                d,
                                                org.assertj.core.api.Assertions.within(
                                                        Math.abs(d) * 1e-6 + 1e-9));
                            } else {
                                assertThat(got.get("value").asText())
                                        .as(what)
                                        .isEqualTo(v.toString());
                            }
                            Object ts = want.get("ts");
                            if (ts != null) {
                                assertThat(
                                                Instant.parse(got.get("event_time").asText())
                                                        .toEpochMilli())
                                        .as(what)
                                        .isEqualTo(((Number) ts).longValue());
                            }
                            compared++;
                        }
                    }
                }
            }
        }
        return compared;
    }

    /** {@code sluice get --at} of the demo's online store, as JSON. */
    private String getAt(String features, List<String> entities, Instant at) {
        return cli(
                "get",
                "--config",
                dir.resolve("sluice.yaml").toString(),
                "--features",
                features,
                "--entities",
                String.join(",", entities),
                "--at",
                at.toString(),
                "--json");
    }

    private long trainingSetAgreesWithSqlOnlineAndDefinition(SluiceConfig config, Instant start)
            throws Exception {
        long now = System.currentTimeMillis();
        List<String> features = new ArrayList<>();
        List<ViewDef> views = new ArrayList<>();
        // The brute-force definition over the demo's own generated stream (same seed and start).
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(config.tables(), GeneratorOptions.defaults(3_000, 7).withStart(start))
                .run(generated::add);
        Map<String, Map<String, List<EventEntry>>> accepted = new java.util.HashMap<>();
        for (FeatureViewConfig view : config.featureViews()) {
            TableConfig table = config.table(view.source()).orElseThrow();
            views.add(ViewDef.of(view, table));
            view.features().forEach(f -> features.add(view.name() + ":" + f.name()));
            accepted.put(view.name(), Expected.events(view, table, generated));
        }
        Path spine = dir.resolve("spine.parquet");
        Path out = dir.resolve("training.parquet");
        long compared = 0;
        try (DuckDb duck = new DuckDb()) {
            // Random (entity, t) within the online store's retention: a third exactly at one of
            // the entity's purchases, the rest at random times up to now (past what the warehouse
            // holds: the generator's events end an hour before the current one), and an entity
            // never seen, once past the warehouse and once inside it.
            duck.execute("select setseed(0.25)");
            duck.execute(
                    "create table spine as select user_id, event_timestamp, row_number() over () as"
                            + " label from (select user_id, case when random() < 0.33 then"
                            + " event_time else to_timestamp("
                            + (now / 1000)
                            + " - random() * 6 * 3600) end as event_timestamp from"
                            + " read_parquet('"
                            + dir.resolve("warehouse/purchases")
                            + "/*/*/*.parquet') using sample 250 rows (reservoir, 11)"
                            + " union all select 'u-never-seen', to_timestamp("
                            + (now / 1000 - 1800)
                            + ") union all select 'u-never-seen', to_timestamp("
                            + (start.getEpochSecond() + 7200)
                            + "))");
            duck.execute("copy spine to '" + spine + "' (format parquet)");

            String[] request = {
                "training-set",
                "--config",
                dir.resolve("sluice.yaml").toString(),
                "--spine",
                spine.toString(),
                "--features",
                String.join(",", features),
                "--out",
                out.toString(),
                "--incomplete",
                "mark",
                "--with-status"
            };
            // Without --incomplete mark, the rows past the warehouse are refused.
            assertThat(Main.run(java.util.Arrays.copyOf(request, request.length - 3))).isEqualTo(1);
            String first = cli(request);
            assertThat(first).contains("built new artifact");
            String digest = first.replaceAll("(?s).*artifact ([0-9a-f]{64}).*", "$1");
            String second = cli(request);
            assertThat(second).contains("reused artifact " + digest);

            List<Map<String, Object>> built =
                    duck.rows(
                            "select *, epoch_us(event_timestamp) as t_us from read_parquet('"
                                    + out
                                    + "')");
            List<Map<String, Object>> sql =
                    duck.rows(
                            io.sluice.app.bench.TrainingSetSql.query(
                                    config, spine, "event_timestamp", features));
            assertThat(built).hasSize(252).hasSameSizeAs(sql);
            // Where the warehouse ends, per table, read from its hours' manifests: the demo's
            // hours are all complete and compacted, so each table's is its last hour's end.
            Map<String, Long> covered = new java.util.HashMap<>();
            for (TableConfig t : config.tables()) {
                covered.put(
                        t.name(), lastHourEnd(Path.of(config.tablePath("warehouse", t.name()))));
            }
            long incomplete = 0;
            long notFound = 0;
            try (OnlineStore store = OnlineStores.open(config.online())) {
                FeatureReader online = new FeatureReader(store, views, () -> now);
                List<FeatureReader.FeatureRef> refs =
                        features.stream().map(FeatureReader.FeatureRef::parse).toList();
                for (int i = 0; i < built.size(); i++) {
                    Map<String, Object> row = built.get(i);
                    assertThat(row.get("label")).isEqualTo(sql.get(i).get("label"));
                    String entity = (String) row.get("user_id");
                    long tUs = ((Number) row.get("t_us")).longValue();
                    Instant t = Instant.EPOCH.plus(tUs, java.time.temporal.ChronoUnit.MICROS);
                    FeatureReader.Vector served = online.read(refs, List.of(entity), t).get(0);
                    for (int f = 0; f < features.size(); f++) {
                        String column = features.get(f).replace(":", "__");
                        String what = column + " of " + entity + " at " + t;
                        Object value = row.get(column);
                        String source =
                                config.featureView(refs.get(f).view()).orElseThrow().source();
                        if (tUs > covered.get(source) * 1000) {
                            // Later than the warehouse's last complete hour: never a value.
                            assertThat(row.get(column + "__status"))
                                    .as(what)
                                    .isEqualTo("INCOMPLETE");
                            assertThat(value).as(what).isNull();
                            incomplete++;
                            compared++;
                            continue;
                        }
                        assertThat(row.get(column + "__status"))
                                .as(what)
                                .isNotEqualTo("INCOMPLETE");
                        if ("NOT_FOUND".equals(row.get(column + "__status"))) {
                            notFound++;
                        }
                        // Floating sums to 1e-9 relative (float32 to its precision), as DESIGN
                        // allows: a coarse tile online adds events in arrival order.
                        SameValue.assertSameValue(
                                what + " online", served.values().get(f).value(), value);
                        FeatureReader.FeatureRef ref = refs.get(f);
                        ViewDef view =
                                views.stream()
                                        .filter(v -> v.name().equals(ref.view()))
                                        .findFirst()
                                        .orElseThrow();
                        SameValue.assertSameValue(
                                what + " definition",
                                Definition.valueAtNanos(
                                                view,
                                                view.feature(ref.feature()),
                                                Math.multiplyExact(tUs, 1_000L),
                                                accepted.get(view.name())
                                                        .getOrDefault(entity, List.of()))
                                        .value(),
                                value);
                        Object want = sql.get(i).get(column);
                        if (want instanceof java.sql.Struct struct) {
                            want = struct.getAttributes()[0];
                        }
                        if (want == null) {
                            assertThat(value).as(what + " sql").isNull();
                        } else if (value instanceof Float || value instanceof Double) {
                            double d = ((Number) want).doubleValue();
                            assertThat(((Number) value).doubleValue())
                                    .as(what + " sql")
                                    .isCloseTo(
                                            d,
                                            org.assertj.core.api.Assertions.within(
                                                    Math.abs(d)
                                                                    * (value instanceof Float
                                                                            ? 1e-6
                                                                            : 1e-9)
                                                            + 1e-9));
                        } else if (value instanceof Number n) {
                            assertThat(n.longValue())
                                    .as(what + " sql")
                                    .isEqualTo(((Number) want).longValue());
                        } else {
                            assertThat(String.valueOf(value))
                                    .as(what + " sql")
                                    .isEqualTo(String.valueOf(want));
                        }
                        compared++;
                    }
                }
            }
            assertThat(incomplete).as("INCOMPLETE values").isPositive();
            assertThat(notFound).as("NOT_FOUND values inside the warehouse").isPositive();
        }
        return compared;
    }

    /** The end of the last hour of a warehouse table that has a {@code _SUCCESS}. */
    private static long lastHourEnd(Path table) throws IOException {
        try (var manifests =
                Files.find(table, 3, (p, a) -> p.getFileName().toString().equals("_SUCCESS"))) {
            long last =
                    manifests
                            .map(p -> table.relativize(p.getParent()).toString())
                            .mapToLong(io.sluice.lake.HourPartitioner::parse)
                            .max()
                            .orElseThrow();
            return last + 3_600_000L;
        }
    }

    private static String cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream old = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertThat(Main.run(args)).isZero();
        } finally {
            System.setOut(old);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
