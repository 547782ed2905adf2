package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.net.Ports;
import io.sluice.testing.Await;
import io.sluice.testing.ChildJava;
import io.sluice.testing.Topics;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice kafka} used the way a user uses it: started as a process of its own, killed with
 * SIGKILL, and started again on the same data directory and port.
 */
class KafkaCommandITCase {

    private static final Duration STARTUP = Duration.ofSeconds(90);

    @TempDir Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldKeepTopicsRecordsAndOffsetsAcrossAKilledBroker() throws Exception {
        int port = Ports.unassigned();
        String bootstrap = "127.0.0.1:" + port;
        SluiceConfig config = ReferenceConfig.writeInto(dir, bootstrap);
        Path data = dir.resolve("kafka");
        TableConfig purchases = config.table("purchases").orElseThrow();

        Process first =
                sluiceKafka(
                        "first",
                        "--port",
                        Integer.toString(port),
                        "--data-dir",
                        data.toString(),
                        "--config",
                        dir.resolve("sluice.yaml").toString(),
                        "--partitions",
                        "2");
        awaitBroker(first, "first", bootstrap);

        Map<String, TopicDescription> topics = describeAll(bootstrap, config);
        assertThat(topics).hasSize(2 * config.tables().size());
        assertThat(topics.values()).allSatisfy(t -> assertThat(t.partitions()).hasSize(2));

        Topics.send(
                bootstrap,
                List.of(
                        new ProducerRecord<>(
                                purchases.topic(),
                                0,
                                "u1".getBytes(StandardCharsets.UTF_8),
                                "before the kill".getBytes(StandardCharsets.UTF_8))));
        assertThat(values(Topics.readAll(bootstrap, purchases.topic())))
                .containsExactly("before the kill");
        TopicPartition partition = new TopicPartition(purchases.topic(), 0);
        commitOffset(bootstrap, partition, 1);

        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).as("killed").isTrue();
        assertThat(first.exitValue()).as("SIGKILL").isEqualTo(137);

        // Started again without --config: the topics come from the data directory alone.
        Process second =
                sluiceKafka(
                        "second", "--port", Integer.toString(port), "--data-dir", data.toString());
        awaitBroker(second, "second", bootstrap);

        assertThat(describeAll(bootstrap, config)).hasSize(2 * config.tables().size());
        assertThat(values(Topics.readAll(bootstrap, purchases.topic())))
                .containsExactly("before the kill");
        assertThat(committedOffset(bootstrap, partition)).isEqualTo(1);

        // The restarted broker takes writes as well.
        Topics.send(
                bootstrap,
                List.of(
                        new ProducerRecord<>(
                                purchases.topic(),
                                0,
                                null,
                                "after the restart".getBytes(StandardCharsets.UTF_8))));
        assertThat(values(Topics.readAll(bootstrap, purchases.topic())))
                .containsExactly("before the kill", "after the restart");

        // A plain kill (SIGTERM) stops it through its shutdown hook.
        second.destroy();
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
        assertThat(Files.readString(log("second"))).contains("sluice kafka: stopped");
    }

    private Process sluiceKafka(String name, String... args) throws IOException {
        List<String> command = ChildJava.command("-Xmx512m");
        command.add("-cp");
        command.add(ChildJava.classPath());
        command.add(Main.class.getName());
        command.add("kafka");
        command.addAll(List.of(args));
        Process process =
                new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log(name).toFile())
                        .start();
        started.add(process);
        return process;
    }

    private Path log(String name) {
        return dir.resolve("sluice-kafka-" + name + ".log");
    }

    /** Waits for the line the command prints once it is up, then for a client's answer. */
    private void awaitBroker(Process process, String name, String bootstrap) throws Exception {
        File out = log(name).toFile();
        Await.until(
                "sluice kafka (" + name + ") to print its bootstrap address",
                STARTUP,
                () -> {
                    assertThat(process.isAlive())
                            .as("sluice kafka (%s) exited early:%n%s", name, read(out))
                            .isTrue();
                    return read(out).contains("bootstrap: " + bootstrap);
                });
        try (Admin admin = admin(bootstrap)) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    private static String read(File file) {
        try {
            return Files.readString(file.toPath());
        } catch (IOException e) {
            return "";
        }
    }

    private static Map<String, TopicDescription> describeAll(String bootstrap, SluiceConfig config)
            throws Exception {
        List<String> names = new ArrayList<>();
        for (TableConfig t : config.tables()) {
            names.add(t.topic());
            names.add(DeadLetterSerializer.topicFor(t.topic()));
        }
        try (Admin admin = admin(bootstrap)) {
            return admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "kafka-command-it");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static void commitOffset(String bootstrap, TopicPartition partition, long offset) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            consumer.assign(List.of(partition));
            consumer.commitSync(
                    Map.of(partition, new OffsetAndMetadata(offset)), Duration.ofSeconds(30));
        }
    }

    private static long committedOffset(String bootstrap, TopicPartition partition) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            OffsetAndMetadata committed =
                    consumer.committed(java.util.Set.of(partition), Duration.ofSeconds(30))
                            .get(partition);
            return committed == null ? -1 : committed.offset();
        }
    }

    private static List<String> values(
            List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }
}
