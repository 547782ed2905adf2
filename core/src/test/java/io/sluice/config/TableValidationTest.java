package io.sluice.config;

import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.event.DeadLetterSerializer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableValidationTest {
    private static final String PURCHASE_FIELDS =
            "(fields: event_id, event_time, user_id, session_id, order_id, item_id, category,"
                    + " price, quantity, payment_method, coupon, device, country)";

    @Test
    void shouldRejectBucketsThatAreNotAnInteger() {
        assertThat(errors(VALID.replace("buckets: 16", "buckets: abc")))
                .containsExactly(
                        "sluice.yaml:12: tables[0].buckets: must be a positive integer, got 'abc'");
    }

    @Test
    void shouldRejectBucketsOutOfRange() {
        assertThat(errors(VALID.replace("buckets: 16", "buckets: 100001")))
                .containsExactly(
                        "sluice.yaml:12: tables[0].buckets: must be between 1 and 100000, got"
                                + " 100001");
        assertThat(errors(VALID.replace("buckets: 16", "buckets: 0")))
                .containsExactly(
                        "sluice.yaml:12: tables[0].buckets: must be between 1 and 100000, got 0");
    }

    @Test
    void shouldRejectTableNamesThatCouldEscapeTheirDirectory() {
        assertThat(errors(VALID.replace("name: purchases", "name: ../purchases")))
                .containsExactly(
                        "sluice.yaml:6: tables[0].name: must match ^[a-z][a-z0-9_]{0,62}$"
                                + " (it becomes a directory name), got '../purchases'");
        assertThat(errors(VALID.replace("name: purchases", "name: Purchases"))).hasSize(1);
    }

    @Test
    void shouldRejectIllegalTopicNames() {
        assertThat(errors(VALID.replace("topic: shop.purchases", "topic: shop/purchases")))
                .containsExactly(
                        "sluice.yaml:7: tables[0].topic: must be a legal Kafka topic name"
                                + " (1 to 249 of a-z A-Z 0-9 . _ -), got 'shop/purchases'");
        assertThat(errors(VALID.replace("topic: shop.purchases", "topic: '..'"))).hasSize(1);
    }

    @Test
    void shouldRejectUnknownSchema() {
        assertThat(errors(VALID.replace("schema: Purchase", "schema: Order")))
                .containsExactly("sluice.yaml:8: tables[0].schema: unknown schema 'Order'");
    }

    @Test
    void shouldReportASchemaResolverFailureAgainstTheKey() {
        assertThat(
                        errors(
                                VALID,
                                Map.of(),
                                name -> {
                                    throw new IllegalStateException("registry down");
                                }))
                .containsExactly(
                        "sluice.yaml:8: tables[0].schema: cannot load schema 'Purchase': registry"
                                + " down");
    }

    @Test
    void shouldRejectEventTimeThatIsNotATimestamp() {
        assertThat(errors(VALID.replace("event_time: event_time", "event_time: quantity")))
                .containsExactly(
                        "sluice.yaml:9: tables[0].event_time: field 'quantity' must be a non-null"
                                + " long with logicalType timestamp-millis or timestamp-micros,"
                                + " but is int");
    }

    @Test
    void shouldRejectUnknownKeyFieldListingTheSchemaFields() {
        assertThat(errors(VALID.replace("key: user_id", "key: customer_id")))
                .containsExactly(
                        "sluice.yaml:10: tables[0].key: unknown field 'customer_id' in schema"
                                + " Purchase "
                                + PURCHASE_FIELDS);
    }

    @Test
    void shouldRejectANullableKey() {
        assertThat(errors(VALID.replace("key: user_id", "key: coupon")))
                .containsExactly(
                        "sluice.yaml:10: tables[0].key: field 'coupon' must be a non-null string,"
                                + " int or long, but is nullable string");
    }

    @Test
    void shouldRejectAnIdOfTheWrongType() {
        assertThat(errors(VALID.replace("id: event_id", "id: price")))
                .containsExactly(
                        "sluice.yaml:11: tables[0].id: field 'price' must be a non-null string or"
                                + " long, but is float");
    }

    @Test
    void shouldRejectMalformedDurations() {
        String yaml = VALID.replace("buckets: 16", "buckets: 16\n    allowed_lateness: 15min");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:13: tables[0].allowed_lateness: must be a duration such as"
                                + " 500ms, 30s, 15m, 1h or 7d, got '15min'");
    }

    @Test
    void shouldRejectZeroIdleness() {
        String yaml = VALID.replace("buckets: 16", "buckets: 16\n    idleness: 0s");

        assertThat(errors(yaml))
                .containsExactly("sluice.yaml:13: tables[0].idleness: must be positive, got 0s");
    }

    @Test
    void shouldRejectUnknownFormat() {
        String yaml = VALID.replace("buckets: 16", "buckets: 16\n    format: protobuf");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:13: tables[0].format: must be one of json, avro, got"
                                + " 'protobuf'");
    }

    @Test
    void shouldRejectMaxRecordBytesOutOfRange() {
        String yaml = VALID.replace("buckets: 16", "buckets: 16\n    max_record_bytes: 20000000");

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:13: tables[0].max_record_bytes: must be between 1 and"
                                + " 10485760, got 20000000");
    }

    @Test
    void shouldReadExplicitTableSettings() {
        String yaml =
                VALID.replace(
                        "buckets: 16",
                        "buckets: 16\n    format: avro\n    strict: true\n    max_past: 7d\n"
                                + "    max_future: 500ms\n    dedup_retention: 2h");

        TableConfig table = TestConfigs.parse(yaml).tables().get(0);

        assertThat(table.format()).isEqualTo(TableFormat.AVRO);
        assertThat(table.strict()).isTrue();
        assertThat(table.maxPast()).hasDays(7);
        assertThat(table.maxFuture()).hasMillis(500);
        assertThat(table.dedupRetention()).hasHours(2);
    }

    @Test
    void shouldRejectDuplicateTableNamesAndTopics() {
        String yaml =
                VALID
                        + """
                          - name: purchases
                            topic: shop.purchases
                            schema: Purchase
                            event_time: event_time
                            key: user_id
                            id: event_id
                            buckets: 16
                        """;

        assertThat(errors(yaml))
                .containsExactly(
                        "sluice.yaml:13: tables[1].name: duplicate table name 'purchases'"
                                + " (first at line 6)",
                        "sluice.yaml:14: tables[1].topic: topic 'shop.purchases' is already read"
                                + " by table 'purchases' (line 7)");
    }

    /** {@link VALID} with a second table (lines 13-19) reading {@code topic} (line 14). */
    private static String withSecondTable(String topic) {
        return VALID
                + """
                  - name: purchases_copy
                    topic: %s
                    schema: Purchase
                    event_time: event_time
                    key: user_id
                    id: event_id
                    buckets: 16
                """
                        .formatted(topic);
    }

    @Test
    void shouldRefuseATableReadingAnotherTablesDeadLetterTopic() {
        assertThat(errors(withSecondTable("shop.purchases.dlq")))
                .containsExactly(
                        "sluice.yaml:14: tables[1].topic: 'shop.purchases.dlq' is a dead-letter"
                                + " topic (the ingest job writes there the records it refuses"
                                + " from 'shop.purchases'); a table may not read a topic ending"
                                + " in '.dlq'");
    }

    @Test
    void shouldRefuseADeadLetterTopicEvenWithoutItsSourceTable() {
        assertThat(errors(VALID.replace("topic: shop.purchases", "topic: shop.orders.dlq")))
                .singleElement()
                .asString()
                .startsWith("sluice.yaml:7: tables[0].topic: 'shop.orders.dlq' is a dead-letter");
        // The suffix is what is refused, not the letters anywhere in the name.
        assertThat(TestConfigs.parse(withSecondTable("shop.dlq.replay")).tables()).hasSize(2);
    }

    @Test
    void shouldUseTheSuffixTheIngestJobWritesDeadLettersTo() {
        assertThat(DeadLetterSerializer.topicFor("shop.purchases"))
                .isEqualTo("shop.purchases" + TableConfig.DEAD_LETTER_SUFFIX);
    }

    @Test
    void shouldRefuseTopicsThatKafkaWouldTakeForTheSameName() {
        assertThat(errors(withSecondTable("shop_purchases")))
                .containsExactly(
                        "sluice.yaml:14: tables[1].topic: topic 'shop_purchases' collides with"
                                + " topic 'shop.purchases' of table 'purchases' (line 7): Kafka"
                                + " treats '.' and '_' in topic names as the same");
        assertThat(errors(withSecondTable("shop.purchases_dlq")))
                .containsExactly(
                        "sluice.yaml:14: tables[1].topic: topic 'shop.purchases_dlq' collides"
                                + " with 'shop.purchases.dlq', the dead-letter topic of table"
                                + " 'purchases' (line 7): Kafka treats '.' and '_' in topic"
                                + " names as the same");
        assertThat(
                        errors(
                                VALID.replace("topic: shop.purchases", "topic: shop.purchases_dlq")
                                        + withSecondTable("shop.purchases")
                                                .substring(VALID.length())))
                .containsExactly(
                        "sluice.yaml:14: tables[1].topic: its dead-letter topic"
                                + " 'shop.purchases.dlq' collides with topic 'shop.purchases_dlq'"
                                + " of table 'purchases' (line 7): Kafka treats '.' and '_' in"
                                + " topic names as the same");
    }
}
