package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.features.training.Spine;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's HTTP check: how it compares values and which training-set row it asks about. */
class DemoHttpCheckTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode json(String text) throws Exception {
        return MAPPER.readTree(text);
    }

    @Test
    void shouldCompareValuesAsDesignSays() throws Exception {
        assertThat(DemoHttpCheck.sameValue(null, json("null"))).isTrue();
        assertThat(DemoHttpCheck.sameValue(null, json("0"))).isFalse();
        assertThat(DemoHttpCheck.sameValue(0L, json("null"))).isFalse();
        assertThat(DemoHttpCheck.sameValue(3L, json("3"))).isTrue();
        assertThat(DemoHttpCheck.sameValue(3L, json("4"))).isFalse();
        assertThat(DemoHttpCheck.sameValue(3L, json("3.5"))).isFalse();
        assertThat(DemoHttpCheck.sameValue(new Utf8("sports"), json("\"sports\""))).isTrue();
        assertThat(DemoHttpCheck.sameValue(new Utf8("sports"), json("\"books\""))).isFalse();
        // A float32 is served as its exact double; one float ulp apart still matches.
        assertThat(DemoHttpCheck.sameValue(12.99f, json("12.989999771118164"))).isTrue();
        assertThat(DemoHttpCheck.sameValue(12.99f, json(Double.toString(Math.nextUp(12.99f)))))
                .isTrue();
        assertThat(DemoHttpCheck.sameValue(12.99f, json("12.99001"))).isFalse();
        assertThat(DemoHttpCheck.sameValue(1000.0, json("1000.0000000001"))).isTrue();
        assertThat(DemoHttpCheck.sameValue(1000.0, json("1000.00001"))).isFalse();
        assertThat(DemoHttpCheck.sameValue(1000.0, json("\"1000.0\""))).isFalse();
    }

    @Test
    void shouldPickAPastRowInRetentionWithTheMostValues(@TempDir Path dir) {
        FeatureViewConfig view =
                TestConfigs.shop(dir, "localhost:9092", "t")
                        .featureView("user_purchases")
                        .orElseThrow();
        List<Schema.Field> fields = new ArrayList<>();
        fields.add(new Schema.Field("user_id", Schema.create(Schema.Type.STRING)));
        fields.add(new Schema.Field("event_timestamp", Schema.create(Schema.Type.STRING)));
        for (FeatureConfig f : view.features()) {
            fields.add(
                    new Schema.Field(
                            view.name() + "__" + f.name(),
                            Schema.createUnion(
                                    Schema.create(Schema.Type.NULL),
                                    Schema.create(Schema.Type.STRING)),
                            null,
                            JsonProperties.NULL_VALUE));
        }
        Schema schema = Schema.createRecord("t", null, "test", false, fields);
        long now = Instant.parse("2026-11-21T12:00:00Z").toEpochMilli();
        long ttl = view.ttl().toMillis();
        assertThat(Duration.ofMillis(ttl)).isGreaterThan(Duration.ofHours(3));
        List<GenericRecord> rows = new ArrayList<>();
        rows.add(row(schema, "u-old", now - ttl - 1, 7)); // out of retention
        rows.add(row(schema, "u-future", now + 1, 7)); // not yet
        rows.add(row(schema, "u-one", now - 3_600_000, 1));
        rows.add(row(schema, "u-three", now - 7_200_000, 3));
        rows.add(row(schema, "u-three-later", now - 60_000, 3));
        rows.add(row(schema, "u-two", now - 60_000, 2));
        rows.add(row(schema, "u-three-distinct", now - 120_000, 3, true));

        DemoHttpCheck.Pick pick =
                DemoHttpCheck.pick(
                        new Spine(dir.resolve("t.parquet"), schema, rows), view, now, now);

        assertThat(pick.row()).isEqualTo(6);
        assertThat(pick.entity()).isEqualTo("u-three-distinct");
        assertThat(pick.at()).isEqualTo(Instant.ofEpochMilli(now - 120_000));
        // Without it, the first of the rows with most values.
        pick =
                DemoHttpCheck.pick(
                        new Spine(dir.resolve("t.parquet"), schema, rows.subList(0, 6)),
                        view,
                        now,
                        now);
        assertThat(pick.row()).isEqualTo(3);
        assertThat(pick.entity()).isEqualTo("u-three");
        assertThat(pick.at()).isEqualTo(Instant.ofEpochMilli(now - 7_200_000));
        // Nor a row at or after what the features job has written the view through.
        pick =
                DemoHttpCheck.pick(
                        new Spine(dir.resolve("t.parquet"), schema, rows),
                        view,
                        now,
                        now - 7_200_000);
        assertThat(pick).isNull();
        pick =
                DemoHttpCheck.pick(
                        new Spine(dir.resolve("t.parquet"), schema, rows),
                        view,
                        now,
                        now - 3_600_000 + 1);
        assertThat(pick.entity()).as("the best of the rows before the mark").isEqualTo("u-three");
        assertThat(
                        DemoHttpCheck.pick(
                                new Spine(dir.resolve("t.parquet"), schema, rows.subList(0, 2)),
                                view,
                                now,
                                now))
                .isNull();
    }

    private static GenericRecord row(Schema schema, String entity, long at, int values) {
        return row(schema, entity, at, values, false);
    }

    private static GenericRecord row(
            Schema schema, String entity, long at, int values, boolean distinct) {
        GenericData.Record r = new GenericData.Record(schema);
        r.put("user_id", entity);
        r.put("event_timestamp", Instant.ofEpochMilli(at).toString());
        for (int i = 0; i < values; i++) {
            r.put(2 + i, distinct ? "v" + i : "v");
        }
        return r;
    }
}
