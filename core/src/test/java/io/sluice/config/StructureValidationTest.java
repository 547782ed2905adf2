package io.sluice.config;

import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static io.sluice.config.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StructureValidationTest {

    @Test
    void shouldNameKeyAndLineForUnknownKey() {
        String yaml = VALID.replace("buckets: 16", "bukets: 16");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:6: tables[0].buckets: required",
                        "sluice.yaml:12: tables[0].bukets: unknown key (did you mean 'buckets'?)");
    }

    @Test
    void shouldListExpectedKeysWhenNoKnownKeyIsClose() {
        String yaml =
                VALID.replace("  root: file:./data", "  root: file:./data\n  compression: zstd");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:5: storage.compression: unknown key (expected one of: root,"
                                + " s3)");
    }

    @Test
    void shouldReportUnknownTopLevelSection() {
        String yaml = VALID + "featur_views: []\n";

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:13: featur_views: unknown key (did you mean"
                                + " 'feature_views'?)");
    }

    @Test
    void shouldReportDuplicateKeyWithTheLineOfTheFirst() {
        String yaml = VALID.replace("    buckets: 16", "    buckets: 16\n    buckets: 32");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:13: tables[0].buckets: duplicate key (first at line 12)");
    }

    @Test
    void shouldReportMissingRequiredSections() {
        assertThat(errors("online: { store: sqlite }\n"))
                .containsExactly(
                        "sluice.yaml:1: kafka: required",
                        "sluice.yaml:1: storage: required",
                        "sluice.yaml:1: tables: required");
    }

    @Test
    void shouldReportMissingRequiredKeyAtTheLineOfItsMapping() {
        String yaml = VALID.replace("    topic: shop.purchases\n", "");

        assertThat(errors(yaml)).containsExactly("sluice.yaml:6: tables[0].topic: required");
    }

    @Test
    void shouldTreatAnEmptyValueAsMissing() {
        String yaml = VALID.replace("bootstrap: localhost:9092", "bootstrap:");

        assertThat(errors(yaml)).containsExactly("sluice.yaml:2: kafka.bootstrap: required");
    }

    @Test
    void shouldRejectASectionThatIsNotAMapping() {
        String yaml = VALID.replace("storage:\n  root: file:./data", "storage: [file:./data]");

        assertThat(errors(yaml))
                .containsExactly("sluice.yaml:3: storage: must be a mapping, got a list");
    }

    @Test
    void shouldRejectAListWhereASingleValueBelongs() {
        String yaml = VALID.replace("buckets: 16", "buckets: [16]");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:12: tables[0].buckets: must be a single value, got a list");
    }

    @Test
    void shouldReportYamlSyntaxErrorsWithTheirLine() {
        String yaml = VALID.replace("    key: user_id", "    key: user_id: oops");

        assertThat(errors(yaml))
                .singleElement()
                .asString()
                .startsWith(
                        "sluice.yaml:10: tables[0].key: invalid YAML: mapping values are not"
                                + " allowed");
    }

    @Test
    void shouldRejectAnEmptyFile() {
        assertThat(errors("# nothing here\n"))
                .containsExactly(
                        "sluice.yaml:1: expected a mapping with kafka, storage and tables at the"
                                + " top");
    }

    @Test
    void shouldRequireAtLeastOneTable() {
        String yaml = "kafka: { bootstrap: 'k:9092' }\nstorage: { root: data }\ntables: []\n";

        assertThat(errors(yaml)).containsExactly("sluice.yaml:3: tables: must not be empty");
    }

    @Test
    void shouldCollectAllErrorsInLineOrderIntoOneException() {
        String yaml =
                VALID.replace("bootstrap: localhost:9092", "bootstrap: localhost")
                        .replace("schema: Purchase", "schema: Purchse")
                        .replace("buckets: 16", "buckets: abc")
                        .replace("    id: event_id", "    id: event_id\n    strict: yes");

        ConfigException e =
                catchThrowableOfType(
                        ConfigException.class,
                        () ->
                                SluiceConfig.parse(
                                        yaml,
                                        "sluice.yaml",
                                        TestConfigs.BASE_DIR,
                                        TestConfigs.shopSchemas(),
                                        java.util.Map.of()));

        assertThat(e.errors())
                .containsExactly(
                        "sluice.yaml:2: kafka.bootstrap: 'localhost' is not host:port"
                                + " (list servers separated by commas)",
                        "sluice.yaml:8: tables[0].schema: unknown schema 'Purchse'",
                        "sluice.yaml:12: tables[0].strict: must be true or false, got 'yes'",
                        "sluice.yaml:13: tables[0].buckets: must be a positive integer, got 'abc'");
        assertThat(e.getMessage()).isEqualTo(String.join("\n", e.errors()));
    }

    @Test
    void shouldDefaultTheGroupAndKeepPropertiesAsStrings() {
        String yaml =
                VALID.replace(
                        "  bootstrap: localhost:9092",
                        "  bootstrap: a:9092, b:9093\n"
                                + "  properties:\n"
                                + "    linger.ms: 5\n"
                                + "    acks: all");

        KafkaConfig kafka = parse(yaml).kafka();

        assertThat(kafka.bootstrap()).isEqualTo("a:9092,b:9093");
        assertThat(kafka.group()).isEqualTo("sluice");
        assertThat(kafka.properties())
                .containsExactly(
                        java.util.Map.entry("linger.ms", "5"), java.util.Map.entry("acks", "all"));
    }

    @Test
    void shouldRejectKafkaPropertiesThatDuplicateFirstClassKeys() {
        String yaml =
                VALID.replace(
                        "  bootstrap: localhost:9092",
                        "  bootstrap: localhost:9092\n  properties:\n    group.id: other");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:4: kafka.properties.group.id: set kafka.group instead");
    }

    @Test
    void shouldLetATableReuseAnotherThroughMergeKeys() {
        String yaml =
                VALID.replace("  - name: purchases", "  - &purchases\n    name: purchases")
                        + """
                          - <<: *purchases
                            name: purchases_replay
                            topic: shop.purchases.replay
                            buckets: 4
                        """;

        SluiceConfig config = parse(yaml);

        TableConfig replay = config.table("purchases_replay").orElseThrow();
        assertThat(replay.topic()).isEqualTo("shop.purchases.replay");
        assertThat(replay.buckets()).isEqualTo(4);
        assertThat(replay.key()).isEqualTo("user_id");
    }

    @Test
    void shouldDefaultCheckpointingWhenTheSectionIsAbsent() {
        CheckpointConfig checkpoint = parse(VALID).checkpoint();

        assertThat(checkpoint.interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(checkpoint.dir()).isEmpty();
    }

    @Test
    void shouldDefaultTheCompactMemoryShareAndReadAGivenOne() {
        assertThat(parse(VALID).compact().memoryPercent())
                .isEqualTo(CompactConfig.DEFAULT_MEMORY_PERCENT);
        String yaml = VALID.replace("tables:", "compact: { memory_percent: 40 }\ntables:");

        assertThat(parse(yaml).compact().memoryPercent()).isEqualTo(40);
    }

    @Test
    void shouldNameTheCompactMemoryKeyWhenItsValueIsBad() {
        String outOfRange = VALID.replace("tables:", "compact:\n  memory_percent: 95\ntables:");
        String notANumber = VALID.replace("tables:", "compact: { memory_percent: 0.3 }\ntables:");

        assertThat(errors(outOfRange))
                .singleElement()
                .asString()
                .contains("compact.memory_percent: must be between 1 and 80, got 95");
        assertThat(errors(notANumber))
                .singleElement()
                .asString()
                .contains("compact.memory_percent: must be a positive integer, got '0.3'");
    }
}
