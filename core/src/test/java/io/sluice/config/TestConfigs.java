package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.schemas.Schemas;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.Schema;

/** Shared fixtures: the shop schemas from test resources and a minimal valid file to vary. */
final class TestConfigs {
    static final Path BASE_DIR = Path.of("/srv/sluice");

    /** Valid on its own; tests replace one line, so every line number below stays put. */
    static final String VALID =
            """
            kafka:
              bootstrap: localhost:9092
            storage:
              root: file:./data
            tables:
              - name: purchases
                topic: shop.purchases
                schema: Purchase
                event_time: event_time
                key: user_id
                id: event_id
                buckets: 16
            """;

    /** {@link #VALID} plus one view (lines 13-22); append features to it from line 23. */
    static final String WITH_VIEW =
            VALID
                    + """
                    feature_views:
                      - name: user_purchases
                        entity: user_id
                        source: purchases
                        tile: 10m
                        ttl: 7d
                        features:
                          - name: purchases_1h
                            agg: count
                            window: 1h
                    """;

    private TestConfigs() {}

    /** Resolves the shop schemas from the project's schema registry. */
    static Function<String, Schema> shopSchemas() {
        return name -> Schemas.current(name).orElse(null);
    }

    /** {@link #WITH_VIEW} with one more feature, written as a flow mapping on line 23. */
    static String withFeature(String flowMapping) {
        return WITH_VIEW + "      - " + flowMapping + "\n";
    }

    static SluiceConfig parse(String yaml) {
        return parse(yaml, Map.of());
    }

    static SluiceConfig parse(String yaml, Map<String, String> env) {
        return SluiceConfig.parse(yaml, "sluice.yaml", BASE_DIR, shopSchemas(), env);
    }

    static List<String> errors(String yaml) {
        return errors(yaml, Map.of());
    }

    static List<String> errors(String yaml, Map<String, String> env) {
        return errors(yaml, env, shopSchemas());
    }

    static List<String> errors(
            String yaml, Map<String, String> env, Function<String, Schema> schemas) {
        ConfigException e =
                catchThrowableOfType(
                        ConfigException.class,
                        () -> SluiceConfig.parse(yaml, "sluice.yaml", BASE_DIR, schemas, env));
        assertThat(e).as("expected the configuration to be rejected").isNotNull();
        return e.errors();
    }
}
