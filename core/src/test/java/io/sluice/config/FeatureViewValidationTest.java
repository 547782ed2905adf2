package io.sluice.config;

import static io.sluice.config.TestConfigs.WITH_VIEW;
import static io.sluice.config.TestConfigs.errors;
import static io.sluice.config.TestConfigs.parse;
import static io.sluice.config.TestConfigs.withFeature;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class FeatureViewValidationTest {
    private static final String F1 = "sluice.yaml:23: feature_views[0].features[1].";

    @Test
    void shouldAcceptTheBaseView() {
        FeatureViewConfig view = parse(WITH_VIEW).featureViews().get(0);

        assertThat(view.name()).isEqualTo("user_purchases");
        assertThat(view.source()).isEqualTo("purchases");
        assertThat(view.tile()).isEqualTo(Duration.ofMinutes(10));
        assertThat(view.features())
                .containsExactly(
                        new FeatureConfig(
                                "purchases_1h",
                                Aggregation.COUNT,
                                Optional.empty(),
                                Optional.of(Duration.ofHours(1)),
                                FeatureType.LONG,
                                Duration.ofHours(1)));
    }

    @Test
    void shouldRejectWindowThatIsNotAMultipleOfTheTile() {
        String yaml = withFeature("{ name: spend, agg: sum, field: price, window: 25m }");

        assertThat(errors(yaml)).containsExactly(F1 + "window: 25m is not a multiple of tile 10m");
    }

    @Test
    void shouldRejectWindowLongerThanTtl() {
        String yaml = withFeature("{ name: spend, agg: sum, field: price, window: 8d }");

        assertThat(errors(yaml)).containsExactly(F1 + "window: 8d exceeds ttl 7d");
    }

    @Test
    void shouldRejectTtlThatIsNotAMultipleOfTheTile() {
        assertThat(errors(WITH_VIEW.replace("ttl: 7d", "ttl: 95m")))
                .containsExactly(
                        "sluice.yaml:18: feature_views[0].ttl: 95m is not a multiple of tile 10m");
    }

    @Test
    void shouldRejectATileThatSpansAnHoursBoundary() {
        for (String tile : new String[] {"7s", "2h"}) {
            assertThat(errors(WITH_VIEW.replace("tile: 10m", "tile: " + tile)))
                    .as(tile)
                    .anySatisfy(
                            e ->
                                    assertThat(e)
                                            .startsWith(
                                                    "sluice.yaml:17: feature_views[0].tile: must"
                                                            + " divide an hour (for example 1m, 5m"
                                                            + " or 1h), got "
                                                            + tile));
        }
    }

    @Test
    void shouldRejectSubSecondTile() {
        assertThat(errors(WITH_VIEW.replace("tile: 10m", "tile: 1500ms")))
                .containsExactly(
                        "sluice.yaml:17: feature_views[0].tile: must be whole seconds, got 1500ms");
    }

    @Test
    void shouldRejectAFieldOnCount() {
        String yaml = withFeature("{ name: n, agg: count, field: price, window: 1h }");

        assertThat(errors(yaml)).containsExactly(F1 + "field: count takes no field");
    }

    @Test
    void shouldRequireAWindowExceptForLast() {
        assertThat(errors(withFeature("{ name: n, agg: count }")))
                .containsExactly(F1 + "window: required for count");
        assertThat(errors(withFeature("{ name: n, agg: max, field: price }")))
                .containsExactly(F1 + "window: required for max");
    }

    @Test
    void shouldRequireAFieldForSum() {
        assertThat(errors(withFeature("{ name: n, agg: sum, window: 1h }")))
                .containsExactly(F1 + "field: required for sum");
    }

    @Test
    void shouldRejectANonNumericFieldForSum() {
        assertThat(errors(withFeature("{ name: n, agg: sum, field: category, window: 1h }")))
                .containsExactly(
                        F1
                                + "field: field 'category' is string; sum needs an int, long, float"
                                + " or double field");
    }

    @Test
    void shouldRejectAnUnknownFieldListingTheSchemaFields() {
        assertThat(errors(withFeature("{ name: n, agg: avg, field: prize, window: 1h }")))
                .containsExactly(
                        F1
                                + "field: unknown field 'prize' in schema Purchase (fields:"
                                + " event_id, event_time, user_id, session_id, order_id, item_id,"
                                + " category, price, quantity, payment_method, coupon, device,"
                                + " country)");
    }

    @Test
    void shouldRejectATypeIncompatibleWithTheAggregation() {
        assertThat(
                        errors(
                                withFeature(
                                        "{ name: n, agg: sum, field: price, window: 1h, type:"
                                                + " string }")))
                .containsExactly(
                        F1
                                + "type: string is not compatible with sum over float field 'price'"
                                + " (use float or double)");
        assertThat(
                        errors(
                                withFeature(
                                        "{ name: n, agg: avg, field: quantity, window: 1h, type:"
                                                + " int }")))
                .containsExactly(
                        F1
                                + "type: int is not compatible with avg over int field 'quantity'"
                                + " (use float or double)");
        assertThat(errors(withFeature("{ name: n, agg: last, field: category, type: long }")))
                .containsExactly(
                        F1
                                + "type: long is not compatible with last over string field"
                                + " 'category' (use string)");
    }

    @Test
    void shouldRejectUnknownAggregationAndType() {
        assertThat(errors(withFeature("{ name: n, agg: median, field: price, window: 1h }")))
                .containsExactly(
                        F1 + "agg: must be one of count, sum, min, max, avg, last, got 'median'");
        assertThat(errors(withFeature("{ name: n, agg: count, window: 1h, type: decimal }")))
                .containsExactly(
                        F1
                                + "type: must be one of int, long, float, double, string, got"
                                + " 'decimal'");
    }

    @Test
    void shouldDeriveTypesFromTheAggregationAndField() {
        String yaml =
                WITH_VIEW
                        + """
                              - { name: qty, agg: sum, field: quantity, window: 1h }
                              - { name: spend, agg: sum, field: price, window: 1h }
                              - { name: min_qty, agg: min, field: quantity, window: 1h }
                              - { name: avg_qty, agg: avg, field: quantity, window: 1h }
                              - { name: device, agg: last, field: device }
                              - { name: coupon, agg: last, field: coupon, window: 1d }
                              - { name: qty_d, agg: sum, field: quantity, window: 1h, type: double }
                        """;

        assertThat(parse(yaml).featureViews().get(0).features())
                .extracting(FeatureConfig::type)
                .containsExactly(
                        FeatureType.LONG,
                        FeatureType.LONG,
                        FeatureType.DOUBLE,
                        FeatureType.INT,
                        FeatureType.DOUBLE,
                        FeatureType.STRING,
                        FeatureType.STRING,
                        FeatureType.DOUBLE);
    }

    @Test
    void shouldRejectAnUnknownSourceTable() {
        assertThat(errors(WITH_VIEW.replace("source: purchases", "source: purchase")))
                .containsExactly(
                        "sluice.yaml:16: feature_views[0].source: unknown table 'purchase'"
                                + " (did you mean 'purchases'?)");
    }

    @Test
    void shouldRejectAnEntityThatIsNotTheTableKey() {
        assertThat(errors(WITH_VIEW.replace("entity: user_id", "entity: session_id")))
                .containsExactly(
                        "sluice.yaml:15: feature_views[0].entity: must be the key of table"
                                + " 'purchases' ('user_id'), got 'session_id'");
    }

    @Test
    void shouldRejectDuplicateFeatureNamesWithinAView() {
        assertThat(errors(withFeature("{ name: purchases_1h, agg: count, window: 2h }")))
                .containsExactly(
                        F1 + "name: duplicate feature name 'purchases_1h' (first at line 20)");
    }

    @Test
    void shouldRejectDuplicateViewNames() {
        String second =
                """
                  - name: user_purchases
                    entity: user_id
                    source: purchases
                    tile: 1m
                    ttl: 1d
                    features: [{ name: n, agg: count, window: 1h }]
                """;

        assertThat(errors(WITH_VIEW + second))
                .containsExactly(
                        "sluice.yaml:23: feature_views[1].name: duplicate feature view name"
                                + " 'user_purchases' (first at line 14)");
    }

    @Test
    void shouldRequireAtLeastOneFeature() {
        String yaml =
                WITH_VIEW.substring(0, WITH_VIEW.indexOf("    features:")) + "    features: []\n";

        assertThat(errors(yaml))
                .containsExactly("sluice.yaml:19: feature_views[0].features: must not be empty");
    }

    @Test
    void shouldAcceptNullableNumericFieldsAndRejectBooleanForLast() {
        Schema rating =
                new Schema.Parser()
                        .parse(
                                """
                                {"type": "record", "name": "Rating", "fields": [
                                  {"name": "event_id", "type": "long"},
                                  {"name": "event_time",
                                   "type": {"type": "long", "logicalType": "timestamp-micros"}},
                                  {"name": "user_id", "type": "long"},
                                  {"name": "score", "type": ["null", "double"], "default": null},
                                  {"name": "helpful", "type": "boolean"}]}
                                """);
        String yaml =
                """
                kafka: { bootstrap: 'localhost:9092' }
                storage: { root: data }
                tables:
                  - { name: ratings, topic: ratings, schema: Rating, event_time: event_time,
                      key: user_id, id: event_id, buckets: 4 }
                feature_views:
                  - name: user_ratings
                    entity: user_id
                    source: ratings
                    tile: 1h
                    ttl: 30d
                    features:
                      - { name: score_sum, agg: sum, field: score, window: 1d }
                      - { name: last_helpful, agg: last, field: helpful }
                """;

        assertThat(errors(yaml, Map.of(), name -> name.equals("Rating") ? rating : null))
                .containsExactly(
                        "sluice.yaml:14: feature_views[0].features[1].field: field 'helpful' is"
                                + " boolean; last needs an int, long, float, double, string or enum"
                                + " field");
    }
}
