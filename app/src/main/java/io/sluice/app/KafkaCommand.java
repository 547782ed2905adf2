package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice kafka}: the embedded KRaft broker as a process of its own, so that the jobs can be
 * run, killed and restarted against it. Its data directory keeps topics, records and committed
 * offsets across restarts of the broker.
 */
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        description =
                "Run a local single-node Kafka broker (KRaft) until killed. Topics, records and"
                        + " consumer offsets are kept in --data-dir across restarts.")
final class KafkaCommand implements Callable<Integer> {

    @Option(
            names = "--port",
            defaultValue = "9092",
            description = "Port on 127.0.0.1 for clients (default ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--data-dir",
            defaultValue = "./kafka-data",
            description = "The broker's log directory (default ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--config",
            description =
                    "Path of sluice.yaml: create its tables' topics and their dead-letter topics"
                            + " (existing topics are left as they are).")
    Path config;

    @Option(
            names = "--partitions",
            defaultValue = "1",
            description =
                    "Partitions of the topics created for --config (default ${DEFAULT-VALUE}).")
    int partitions;

    @Override
    public Integer call() throws Exception {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--port must be between 1 and 65535, got " + port);
        }
        if (partitions < 1) {
            throw new IllegalArgumentException(
                    "--partitions must be at least 1, got " + partitions);
        }
        // Read before the broker starts, so that a bad file is reported without a broker to stop.
        SluiceConfig sluice = config == null ? null : SluiceConfig.load(config);

        EmbeddedKafka kafka = EmbeddedKafka.start(dataDir.toAbsolutePath(), port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    System.out.println("sluice kafka: stopping");
                                    System.out.flush();
                                    kafka.close();
                                    System.out.println("sluice kafka: stopped");
                                    System.out.flush();
                                    stopped.countDown();
                                },
                                "sluice-kafka-shutdown"));
        if (sluice != null) {
            List<String> topics = new ArrayList<>();
            for (TableConfig table : sluice.tables()) {
                topics.add(table.topic());
                topics.add(DeadLetterSerializer.topicFor(table.topic()));
            }
            kafka.createTopics(partitions, topics.toArray(String[]::new));
            System.out.println("topics: " + String.join(", ", topics));
            if (!sluice.kafka().bootstrap().contains(":" + port)) {
                System.out.println(
                        "note: "
                                + config
                                + " has kafka.bootstrap "
                                + sluice.kafka().bootstrap()
                                + ", not this broker");
            }
        }
        System.out.println("data: " + dataDir.toAbsolutePath());
        // The last line printed on start: scripts and tests wait for it.
        System.out.println("bootstrap: " + kafka.bootstrapServers());
        System.out.flush();
        stopped.await();
        return 0;
    }
}
