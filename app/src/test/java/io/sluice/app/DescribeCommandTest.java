package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.compact.HourCompactor;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.testing.LandingEdits;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice describe} over a data directory of real landing hours: one compacted, one compacted
 * then re-opened by a late event (stale), two only landed.
 */
class DescribeCommandTest {

    @TempDir Path dir;

    private String config;
    private Map<String, Long> landed;
    private long compactedRows;

    @BeforeEach
    void landThreeHoursAndCompactTwo() throws Exception {
        SluiceConfig cfg = ReferenceConfig.writeInto(dir, "localhost:1");
        config = dir.resolve("sluice.yaml").toString();
        TableConfig purchases = cfg.table("purchases").orElseThrow();
        landed =
                LandingHours.write(
                        dir,
                        purchases,
                        GeneratorOptions.defaults(900, 5)
                                .withStart(Instant.parse("2026-11-21T03:00:00Z"))
                                .withSpan(Duration.ofHours(3))
                                .withRates(0, 0, 0),
                        2,
                        false);
        // One event is generated out of order into the hour before.
        assertThat(landed).hasSize(4);
        // Two hours compacted as the compact job does, each committed to the catalog.
        try (LakeCatalog catalog = LakeCatalog.open(cfg)) {
            HourCompactor compactor =
                    HourCompactor.builder(purchases, dir.toUri())
                            .memoryBudget(HourCompactor.memoryBudget(cfg.compact(), 1))
                            .iceberg(new IcebergHours(catalog.table(purchases), purchases))
                            .build();
            compactedRows += compactor.compact("dt=2026-11-21/hr=03", false).rows();
            compactedRows += compactor.compact("dt=2026-11-21/hr=04", false).rows();
        }
        LandingEdits.addLatePurchase(dir, purchases, "dt=2026-11-21/hr=04", "late-1");
    }

    @Test
    void shouldCountTheHoursLandedCompleteAndCompactedWithTheirRows() throws Exception {
        JsonNode json = new ObjectMapper().readTree(run("describe", "--config", config, "--json"));
        assertThat(json.path("tables")).hasSize(3);
        JsonNode purchases = json.path("tables").get(2);
        assertThat(purchases.path("name").asText()).isEqualTo("purchases");
        assertThat(purchases.path("topic").asText()).isEqualTo("shop.purchases");
        assertThat(purchases.path("key").asText()).isEqualTo("user_id");
        assertThat(purchases.path("buckets").asInt()).isEqualTo(16);
        assertThat(purchases.path("columns").path("price").asText()).isEqualTo("float");
        assertThat(purchases.path("columns").path("event_time").asText())
                .isEqualTo("timestamp-millis");
        assertThat(purchases.path("columns").path("coupon").asText()).isEqualTo("string, nullable");
        assertThat(purchases.path("columns").path("device").asText())
                .isEqualTo("enum Device [WEB, IOS, ANDROID]");

        JsonNode hours = purchases.path("hours");
        assertThat(hours.path("landed").asLong()).isEqualTo(4);
        assertThat(hours.path("complete").asLong()).isEqualTo(4);
        assertThat(hours.path("compacted").asLong()).isEqualTo(1);
        assertThat(hours.path("stale").asLong()).isEqualTo(1);
        long landedRows = landed.values().stream().mapToLong(Long::longValue).sum();
        assertThat(hours.path("landed_rows").asLong()).isEqualTo(landedRows + 1); // the late one
        assertThat(hours.path("warehouse_rows").asLong()).isEqualTo(compactedRows);
        JsonNode open = hours.path("list").get(3);
        assertThat(open.path("partition").asText()).isEqualTo("dt=2026-11-21/hr=05");
        assertThat(open.path("landed_rows").asLong()).isEqualTo(landed.get("dt=2026-11-21/hr=05"));
        assertThat(open.path("warehouse_rows").isNull()).isTrue();

        JsonNode iceberg = purchases.path("iceberg");
        assertThat(iceberg.path("table").asText()).isEqualTo("sluice.purchases");
        JsonNode snapshots = iceberg.path("snapshots");
        assertThat(snapshots).hasSize(2);
        assertThat(snapshots.get(0).path("partition").asText()).isEqualTo("dt=2026-11-21/hr=03");
        assertThat(snapshots.get(1).path("partition").asText()).isEqualTo("dt=2026-11-21/hr=04");
        assertThat(iceberg.path("current").asLong())
                .isEqualTo(snapshots.get(1).path("id").asLong());
        // A table never compacted has no Iceberg table yet, and describing creates none.
        assertThat(json.path("tables").get(0).path("iceberg").path("snapshots")).isEmpty();
        assertThat(json.path("tables").get(0).path("iceberg").has("current")).isFalse();

        JsonNode view = json.path("views").get(2);
        assertThat(view.path("name").asText()).isEqualTo("user_purchases");
        assertThat(view.path("entity").asText()).isEqualTo("user_id");
        assertThat(view.path("source").asText()).isEqualTo("purchases");
        assertThat(view.path("tile").asText()).isEqualTo("1m");
        assertThat(view.path("ttl").asText()).isEqualTo("7d");
        JsonNode spend = view.path("features").get(2);
        assertThat(spend.path("name").asText()).isEqualTo("spend_24h");
        assertThat(spend.path("agg").asText()).isEqualTo("sum");
        assertThat(spend.path("field").asText()).isEqualTo("price");
        assertThat(spend.path("window").asText()).isEqualTo("1d");
        assertThat(spend.path("type").asText()).isEqualTo("float");
        JsonNode last = view.path("features").get(5);
        assertThat(last.path("agg").asText()).isEqualTo("last");
        assertThat(last.path("window").asText()).isEqualTo("7d");
        assertThat(last.path("window_is_ttl").asBoolean()).isTrue();
        assertThat(last.path("type").asText()).isEqualTo("string");
    }

    @Test
    void shouldPrintOneTableWithEveryHourOrOneView() throws Exception {
        assertThat(run("describe", "--config", config, "purchases"))
                .contains(
                        "table purchases: topic shop.purchases (json), key user_id, id event_id,"
                                + " event time event_time, 16 buckets, allowed lateness 1h",
                        "    device           enum Device [WEB, IOS, ANDROID]",
                        "  iceberg table sluice.purchases: 2 snapshots, current ",
                        "    snapshot ",
                        "  hours: 4 landed, 4 complete, 1 compacted, 1 stale;",
                        "dt=2026-11-21/hr=03  landed",
                        "(stale)",
                        "not compacted")
                .doesNotContain("view ");
        assertThat(run("describe", "--config", config, "user_cart"))
                .contains(
                        "view user_cart: entity user_id, source add_to_cart, tile 1m, ttl 1d",
                        "cart_value_24h",
                        "sum(price)",
                        "double")
                .doesNotContain("table ");
    }

    @Test
    void shouldNameTheArgumentAndListTheNamesWhenItIsUnknown() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(Main.run("describe", "--config", config, "orders")).isEqualTo(2);
        } finally {
            System.setErr(old);
        }
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("TABLE|VIEW", "'orders'", "page_views, add_to_cart, purchases")
                .contains("user_activity, user_cart, user_purchases");
    }

    private static String run(String... args) {
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
