package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.testing.DuckDb;
import io.sluice.testing.Landing;
import io.sluice.testing.WarehouseCheck;
import java.io.ByteArrayOutputStream;
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
                .contains("generate:", "ingest:", "compact:", "features:", "check:", "verify:");
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
                        "consistency_mismatches")) {
            assertThat(json.has(field)).as(field).isTrue();
        }
        assertThat(json.get("events_generated").asLong()).isEqualTo(3_000);

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
                for (int q = 0; q < 4; q++) {
                    long at = now - random.nextLong(7 * 3_600_000L);
                    String features =
                            String.join(
                                    ",",
                                    view.features().stream()
                                            .map(f -> view.name() + ":" + f.name())
                                            .toList());
                    JsonNode online =
                            new ObjectMapper()
                                    .readTree(
                                            cli(
                                                    "get",
                                                    "--config",
                                                    dir.resolve("sluice.yaml").toString(),
                                                    "--features",
                                                    features,
                                                    "--entities",
                                                    String.join(",", sample),
                                                    "--at",
                                                    Instant.ofEpochMilli(at).toString(),
                                                    "--json"));
                    for (JsonNode entity : online.get("entities")) {
                        String user = entity.get("entity").asText();
                        for (FeatureConfig f : view.features()) {
                            JsonNode got = entity.get("features").get(view.name() + ":" + f.name());
                            Map<String, Object> want = sql.value(view, table, f, user, at);
                            String what =
                                    view.name() + ":" + f.name() + " of " + user + " at " + at;
                            Object v = want.get("v");
                            if (v == null) {
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
