package io.sluice.config;

import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static io.sluice.config.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvSubstitutionTest {
    private static final String WITH_VARIABLE_BOOTSTRAP =
            VALID.replace("bootstrap: localhost:9092", "bootstrap: ${KAFKA}");

    @Test
    void shouldSubstituteASetVariable() {
        SluiceConfig config = parse(WITH_VARIABLE_BOOTSTRAP, Map.of("KAFKA", "broker:29092"));

        assertThat(config.kafka().bootstrap()).isEqualTo("broker:29092");
    }

    @Test
    void shouldNameKeyAndLineForAnUnsetVariableWithoutDefault() {
        assertThat(errors(WITH_VARIABLE_BOOTSTRAP, Map.of()))
                .containsExactly(
                        "sluice.yaml:2: kafka.bootstrap: environment variable 'KAFKA' is not set"
                                + " and has no default");
    }

    @Test
    void shouldUseTheDefaultWhenTheVariableIsUnsetOrEmpty() {
        String yaml = VALID.replace("bootstrap: localhost:9092", "bootstrap: ${KAFKA:-kafka:9092}");

        assertThat(parse(yaml, Map.of()).kafka().bootstrap()).isEqualTo("kafka:9092");
        assertThat(parse(yaml, Map.of("KAFKA", "")).kafka().bootstrap()).isEqualTo("kafka:9092");
        assertThat(parse(yaml, Map.of("KAFKA", "k1:1")).kafka().bootstrap()).isEqualTo("k1:1");
    }

    @Test
    void shouldSubstituteInsideALargerValue() {
        String yaml =
                VALID.replace(
                        "root: file:./data",
                        "root: s3://${BUCKET}/lake/${ENV:-dev}\n"
                                + "online: { store: redis, uri: '${REDIS}' }");

        SluiceConfig config =
                parse(yaml, Map.of("BUCKET", "acme-data", "REDIS", "redis://cache:6379"));

        assertThat(config.rootUri()).isEqualTo(URI.create("s3://acme-data/lake/dev"));
    }

    @Test
    void shouldValidateTheSubstitutedValue() {
        String yaml = VALID.replace("buckets: 16", "buckets: ${BUCKETS:-16}");

        assertThat(parse(yaml, Map.of()).tables().get(0).buckets()).isEqualTo(16);
        assertThat(errors(yaml, Map.of("BUCKETS", "many")))
                .containsExactly(
                        "sluice.yaml:12: tables[0].buckets: must be a positive integer, got"
                                + " 'many'");
    }

    @Test
    void shouldSubstituteInKafkaPropertiesAndKeepEscapedReferences() {
        String yaml =
                VALID.replace(
                        "  bootstrap: localhost:9092",
                        "  bootstrap: localhost:9092\n  properties:\n"
                                + "    sasl.password: ${KAFKA_PASSWORD}\n"
                                + "    client.note: 'literal $${NOT_A_VAR}'");

        SluiceConfig config = parse(yaml, Map.of("KAFKA_PASSWORD", "s3cret"));

        assertThat(config.kafka().properties())
                .containsEntry("sasl.password", "s3cret")
                .containsEntry("client.note", "literal ${NOT_A_VAR}");
    }

    @Test
    void shouldRejectMalformedReferences() {
        String unterminated = VALID.replace("bootstrap: localhost:9092", "bootstrap: ${KAFKA");
        String badName = VALID.replace("bootstrap: localhost:9092", "bootstrap: ${1KAFKA}");

        assertThat(errors(unterminated))
                .containsExactly("sluice.yaml:2: kafka.bootstrap: unterminated '${' in value");
        assertThat(errors(badName))
                .containsExactly(
                        "sluice.yaml:2: kafka.bootstrap: '${1KAFKA}' is not a valid reference"
                                + " (use ${NAME} or ${NAME:-default})");
    }
}
