package io.sluice.serving;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.online.FeatureReader;
import io.sluice.serving.FeastResponse.FeastStatus;
import io.sluice.testing.TestConfigs;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FeastResponseTest {

    private static final Catalog CATALOG =
            Catalog.of(TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t"));
    private final ObjectMapper mapper = FeastResponse.mapper();

    @Test
    void mapsSluiceStatusesOntoFeasts() {
        assertThat(FeastResponse.status(new FeatureValue(3L, Status.OK, 5)))
                .isEqualTo(FeastStatus.PRESENT);
        assertThat(FeastResponse.status(new FeatureValue(0L, Status.OK, -1)))
                .as("count of an empty window is an OK zero")
                .isEqualTo(FeastStatus.PRESENT);
        assertThat(FeastResponse.status(new FeatureValue(null, Status.EMPTY_WINDOW, -1)))
                .isEqualTo(FeastStatus.NULL_VALUE);
        assertThat(FeastResponse.status(new FeatureValue(null, Status.OUT_OF_RETENTION, -1)))
                .isEqualTo(FeastStatus.OUTSIDE_MAX_AGE);
        assertThat(FeastResponse.status(new FeatureValue(null, Status.NOT_FOUND, -1)))
                .isEqualTo(FeastStatus.NOT_FOUND);
        assertThat(FeastResponse.status(new FeatureValue(null, Status.INCOMPLETE, -1)))
                .as("Feast has no INCOMPLETE, and NULL_VALUE would pass the null as a value")
                .isEqualTo(FeastStatus.INCOMPLETE);
    }

    @Test
    void hasFeastsShapeWithTheEntityColumnFirst() throws Exception {
        OnlineRequest request =
                OnlineRequest.parse(
                        ("{\"features\": [\"user_purchases:spend_24h\","
                                        + " \"user_purchases:last_category\"],"
                                        + " \"entities\": {\"user_id\": [\"u1\", 7]},"
                                        + " \"full_feature_names\": true}")
                                .getBytes(StandardCharsets.UTF_8),
                        mapper,
                        CATALOG,
                        Limits.DEFAULT,
                        System.currentTimeMillis());
        long t = Instant.parse("2026-11-22T10:15:30Z").toEpochMilli();
        List<FeatureReader.Vector> vectors =
                List.of(
                        new FeatureReader.Vector(
                                "u1",
                                List.of(
                                        new FeatureValue(12.99f, Status.OK, t),
                                        new FeatureValue("toys", Status.OK, t))),
                        new FeatureReader.Vector(
                                "7",
                                List.of(
                                        new FeatureValue(0.0f, Status.OK, -1),
                                        new FeatureValue(null, Status.EMPTY_WINDOW, -1))));

        String text = json(request, vectors);
        JsonNode back = mapper.readTree(text);

        assertThat(back.fieldNames()).toIterable().containsExactly("metadata", "results");
        assertThat(back.at("/metadata/feature_names").toString())
                .isEqualTo(
                        "[\"user_id\",\"user_purchases__spend_24h\","
                                + "\"user_purchases__last_category\"]");
        JsonNode results = back.get("results");
        assertThat(results).hasSize(3);
        for (JsonNode column : results) {
            assertThat(column.fieldNames())
                    .toIterable()
                    .containsExactly("values", "statuses", "event_timestamps");
        }
        assertThat(results.get(0).toString())
                .isEqualTo(
                        "{\"values\":[\"u1\",7],\"statuses\":[\"PRESENT\",\"PRESENT\"],"
                                + "\"event_timestamps\":[\"1970-01-01T00:00:00Z\","
                                + "\"1970-01-01T00:00:00Z\"]}");
        assertThat(results.get(1).get("values").get(0).doubleValue()).isEqualTo((double) 12.99f);
        assertThat(results.get(1).get("values").get(1).doubleValue()).isZero();
        assertThat(results.get(1).at("/event_timestamps/0").asText())
                .isEqualTo("2026-11-22T10:15:30Z");
        assertThat(results.get(1).at("/event_timestamps/1").asText())
                .isEqualTo("1970-01-01T00:00:00Z");
        assertThat(results.get(2).toString())
                .isEqualTo(
                        "{\"values\":[\"toys\",null],\"statuses\":[\"PRESENT\",\"NULL_VALUE\"],"
                                + "\"event_timestamps\":[\"2026-11-22T10:15:30Z\","
                                + "\"1970-01-01T00:00:00Z\"]}");
    }

    @Test
    void writesEveryDoubleSoThatItReadsBackExactly() throws Exception {
        SplittableRandom random = new SplittableRandom(17);
        List<Double> doubles = new ArrayList<>();
        for (double d :
                new double[] {
                    0.0,
                    -0.0,
                    1.0,
                    0.1,
                    1e-3,
                    9.999999e-4,
                    1e7,
                    9_999_999.999,
                    2e-323,
                    Double.MIN_VALUE,
                    Double.MIN_NORMAL,
                    Double.MAX_VALUE,
                    12.99f,
                    0.1f,
                    1e22,
                    123_456_789.0,
                    -3.4028234663852886e38
                }) {
            doubles.add(d);
        }
        for (int i = 0; i < 20_000; i++) {
            doubles.add(Double.longBitsToDouble(random.nextLong()));
            doubles.add((double) Float.intBitsToFloat(random.nextInt()));
            doubles.add(random.nextDouble() * Math.pow(10, random.nextInt(-8, 12)));
        }
        doubles.removeIf(d -> d.isNaN() || d.isInfinite());
        var written = new StringWriter();
        try (var out = mapper.getFactory().createGenerator(written)) {
            out.writeStartArray();
            for (double d : doubles) {
                out.writeNumber(d);
            }
            out.writeEndArray();
        }
        JsonNode back = new ObjectMapper().readTree(written.toString());
        assertThat(back).hasSize(doubles.size());
        for (int i = 0; i < doubles.size(); i++) {
            assertThat(back.get(i).doubleValue())
                    .as("written as " + back.get(i))
                    .isEqualTo(doubles.get(i));
        }
    }

    @Test
    void usesShortNamesUnlessFullNamesAreAsked() {
        FeatureReader.FeatureRef ref = new FeatureReader.FeatureRef("user_cart", "cart_adds_1h");
        assertThat(FeastResponse.name(ref, false)).isEqualTo("cart_adds_1h");
        assertThat(FeastResponse.name(ref, true)).isEqualTo("user_cart__cart_adds_1h");
    }

    /** What the server sends: {@link FeastResponse#write} into a buffer, as text. */
    private String json(OnlineRequest request, List<FeatureReader.Vector> vectors)
            throws java.io.IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        FeastResponse.write(mapper, request, vectors, bytes);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
