package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.testing.Landing;
import io.sluice.testing.WarehouseCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
                .contains("generate:", "ingest:", "compact:", "verify:");
        JsonNode json = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        for (String field :
                List.of(
                        "events_generated",
                        "events_invalid",
                        "events_duplicate",
                        "raw_rows",
                        "dlq_rows",
                        "warehouse_rows",
                        "hours_complete")) {
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
    }
}
