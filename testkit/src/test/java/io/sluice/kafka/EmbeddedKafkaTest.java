package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaTest {

    @Test
    void transactionalWritesAreVisibleToReadCommittedConsumers() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopics(2, "events");
            kafka.createTopics(2, "events"); // idempotent
            List<String> expected = IntStream.range(0, 10).mapToObj(i -> "committed-" + i).toList();

            try (KafkaProducer<String, String> producer = producer(kafka, "tx-1")) {
                producer.initTransactions();
                producer.beginTransaction();
                for (int i = 0; i < expected.size(); i++) {
                    producer.send(new ProducerRecord<>("events", i % 2, "k" + i, expected.get(i)));
                }
                producer.commitTransaction();

                // Proves the consumer really filters by isolation level.
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("events", 0, "k", "aborted"));
                producer.flush();
                producer.abortTransaction();
            }

            assertThat(consumeAll(kafka, "events", expected.size()))
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /**
     * Flink's Kafka source commits its offsets with {@code commitAsync} at each checkpoint and logs
     * a failed commit as a warning with a stack trace: a new broker's first commit must not find
     * the group coordinator still loading.
     */
    @Test
    void aNewBrokersFirstAsynchronousOffsetCommitSucceeds() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopics(1, "events");
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(
                            Map.of(
                                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    kafka.bootstrapServers(),
                                    ConsumerConfig.GROUP_ID_CONFIG,
                                    "first-commit",
                                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                    "false"),
                            new StringDeserializer(),
                            new StringDeserializer())) {
                TopicPartition partition = new TopicPartition("events", 0);
                consumer.assign(List.of(partition));
                CompletableFuture<Optional<Exception>> committed = new CompletableFuture<>();
                consumer.commitAsync(
                        Map.of(partition, new OffsetAndMetadata(0)),
                        (offsets, failure) -> committed.complete(Optional.ofNullable(failure)));
                // The callback runs inside poll.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!committed.isDone() && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(50));
                }
                assertThat(committed).isDone();
                assertThat(committed.get()).isEmpty();
            }
        }
    }

    @Test
    void twoBrokersRunSideBySide() throws Exception {
        try (EmbeddedKafka first = EmbeddedKafka.start();
                EmbeddedKafka second = EmbeddedKafka.start()) {
            assertThat(first.bootstrapServers()).isNotEqualTo(second.bootstrapServers());

            first.createTopics(1, "only-in-first");
            second.createTopics(1, "only-in-second");

            assertThat(topics(first)).contains("only-in-first").doesNotContain("only-in-second");
            assertThat(topics(second)).contains("only-in-second").doesNotContain("only-in-first");
        }
    }

    @Test
    void restartsOnTheSameDirectoryKeepingTopics(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            kafka.createTopics(3, "durable");
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            assertThat(topics(kafka)).contains("durable");
        }
    }

    @Test
    void listensOnTheGivenPortAndRefusesOneInUse(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("a"), port)) {
            assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + port);
            kafka.createTopics(1, "fixed");
            assertThat(topics(kafka)).contains("fixed");

            assertThatThrownBy(() -> EmbeddedKafka.start(dir.resolve("b"), port))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + port + " of 127.0.0.1 is in use");
        }
        try (EmbeddedKafka again = EmbeddedKafka.start(dir.resolve("a"), port)) {
            assertThat(topics(again)).contains("fixed");
        }
    }

    @Test
    void reportsStartupFailures(@TempDir Path dir) throws Exception {
        Path notADirectory = Files.createFile(dir.resolve("file"));

        assertThatThrownBy(() -> EmbeddedKafka.start(notADirectory))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(notADirectory.toString());
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka kafka, String txId) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        txId,
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new StringSerializer(),
                new StringSerializer());
    }

    private static List<String> consumeAll(EmbeddedKafka kafka, String topic, int expected) {
        Map<String, Object> config =
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG, "test",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // Poll past the expected count so a leaked aborted record would be caught.
            while (System.nanoTime() < deadline && values.size() <= expected) {
                for (ConsumerRecord<String, String> record :
                        consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
                if (values.size() == expected && endOffsetsReached(consumer)) {
                    break;
                }
            }
        }
        return values;
    }

    private static boolean endOffsetsReached(KafkaConsumer<String, String> consumer) {
        return consumer.endOffsets(consumer.assignment()).entrySet().stream()
                .allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    private static Set<String> topics(EmbeddedKafka kafka) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            return admin.listTopics().names().get(10, TimeUnit.SECONDS);
        }
    }
}
