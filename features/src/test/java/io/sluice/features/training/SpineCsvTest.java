package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Nullable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A CSV spine's columns typed by what they hold, its key and time columns kept as text. */
class SpineCsvTest {

    @TempDir Path dir;

    private Schema.Type type(Schema schema, String column) {
        return Nullable.valueType(schema.getField(column).schema()).getType();
    }

    @Test
    void shouldTypeEachColumnByItsValues() throws Exception {
        Path csv = dir.resolve("spine.csv");
        Files.writeString(
                csv,
                "user_id,event_timestamp,label,score,zip,big,note,empty,mixed\n"
                        + "42,2026-11-20T03:00:00Z,1,0.5,02134,12345678901234567890,a,,1\n"
                        + "7,2026-11-20T04:00:00Z,,1e3,10001,5,3,,x\n"
                        + "\n"
                        + "8,2026-11-20T05:00:00Z,-3,-2,90210,6,b,,2.5\n");
        try (Spine.Rows rows = Spine.open(csv, Set.of("user_id", "event_timestamp"))) {
            Schema schema = rows.schema();
            assertThat(type(schema, "user_id")).isEqualTo(Schema.Type.STRING);
            assertThat(type(schema, "event_timestamp")).isEqualTo(Schema.Type.STRING);
            assertThat(type(schema, "label")).isEqualTo(Schema.Type.LONG);
            assertThat(type(schema, "score")).isEqualTo(Schema.Type.DOUBLE);
            assertThat(type(schema, "zip")).isEqualTo(Schema.Type.STRING);
            assertThat(type(schema, "big")).isEqualTo(Schema.Type.STRING);
            assertThat(type(schema, "note")).isEqualTo(Schema.Type.STRING);
            assertThat(type(schema, "empty")).isEqualTo(Schema.Type.STRING);
            assertThat(type(schema, "mixed")).isEqualTo(Schema.Type.STRING);
            GenericRecord first = rows.next();
            assertThat(first.get("user_id")).isEqualTo("42");
            assertThat(first.get("label")).isEqualTo(1L);
            assertThat(first.get("score")).isEqualTo(0.5);
            assertThat(first.get("zip")).isEqualTo("02134");
            GenericRecord second = rows.next();
            assertThat(second.get("label")).isNull();
            assertThat(second.get("score")).isEqualTo(1000.0);
            GenericRecord third = rows.next();
            assertThat(third.get("label")).isEqualTo(-3L);
            assertThat(third.get("score")).isEqualTo(-2.0);
            assertThat(rows.next()).isNull();
        }
        // Without key columns named, a column of whole numbers is a number.
        try (Spine.Rows rows = Spine.open(csv)) {
            assertThat(type(rows.schema(), "user_id")).isEqualTo(Schema.Type.LONG);
        }
    }

    @Test
    void shouldNameTheLineAndColumnOfAValueThatChangedBetweenPasses() throws Exception {
        Path csv = dir.resolve("spine.csv");
        Files.writeString(csv, "user_id,label\nu1,1\nu2,2\n");
        Schema typed = SpineCsv.schema(csv, Set.of("user_id"));
        Files.writeString(csv, "user_id,label\nu1,1\nu2,two\n");
        try (Spine.Rows rows = SpineCsv.rows(Files.newBufferedReader(csv), csv.toString(), typed)) {
            assertThat(rows.next().get("label")).isEqualTo(1L);
            assertThatThrownBy(rows::next)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("line 3")
                    .hasMessageContaining("column label")
                    .hasMessageContaining("'two'");
        }
    }
}
