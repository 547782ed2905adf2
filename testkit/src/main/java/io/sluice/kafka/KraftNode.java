package io.sluice.kafka;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * The single KRaft node {@link EmbeddedKafka} runs, broker and controller in one: its listeners,
 * its configuration (sized for several brokers in one JVM) and its storage's formatting.
 */
final class KraftNode {

    static final String HOST = "127.0.0.1";
    static final int NODE_ID = 1;
    static final String BROKER_LISTENER = "PLAINTEXT";
    static final String CONTROLLER_LISTENER = "CONTROLLER";

    private KraftNode() {}

    /** The node's configuration, its data in {@code logDir}, on the two ports given. */
    static Map<String, String> config(
            Path logDir, int brokerPort, int controllerPort, Duration startupTimeout) {
        Map<String, String> props = new HashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", String.valueOf(NODE_ID));
        props.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        props.put(
                "listeners",
                BROKER_LISTENER
                        + "://"
                        + HOST
                        + ":"
                        + brokerPort
                        + ","
                        + CONTROLLER_LISTENER
                        + "://"
                        + HOST
                        + ":"
                        + controllerPort);
        props.put(
                "listener.security.protocol.map",
                BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        props.put("controller.listener.names", CONTROLLER_LISTENER);
        props.put("inter.broker.listener.name", BROKER_LISTENER);
        props.put("log.dirs", logDir.toAbsolutePath().toString());
        props.put("server.max.startup.time.ms", String.valueOf(startupTimeout.toMillis()));

        // Internal topics default to replication factor 3 and 50 partitions; one node can only
        // host factor 1, and a single partition keeps their creation fast.
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("share.coordinator.state.topic.num.partitions", "1");
        props.put("default.replication.factor", "1");
        props.put("min.insync.replicas", "1");
        props.put("num.partitions", "1");
        // Flink's exactly-once KafkaSink uses a 1 h transaction timeout by default; the broker
        // default (15 min) would reject its producers.
        props.put("transaction.max.timeout.ms", String.valueOf(Duration.ofHours(1).toMillis()));
        props.put("group.initial.rebalance.delay.ms", "0");
        // A broker restarted after a crash (`sluice kafka` SIGKILLed) re-registers only once its
        // controller has let the old session expire: Kafka's 9 s default, 3 s here. The broker and
        // its controller share one JVM, so a heartbeat is never delayed by the network.
        props.put("broker.session.timeout.ms", "3000");
        props.put("broker.heartbeat.interval.ms", "750");
        props.put("auto.create.topics.enable", "false");

        // Keep footprint small since several brokers may share one test JVM. The cleaner's
        // dedupe buffer alone would otherwise take 128 MiB of heap.
        props.put("log.segment.bytes", String.valueOf(16 << 20));
        props.put("log.cleaner.dedupe.buffer.size", String.valueOf(2 << 20));
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "2");
        props.put("background.threads", "2");
        props.put("num.recovery.threads.per.data.dir", "1");
        return props;
    }

    /** Formats {@code logDir} as the node's storage, unless it holds a formatted node already. */
    static void formatIfNeeded(Path logDir) throws Exception {
        if (Files.exists(logDir.resolve("meta.properties"))) {
            return;
        }
        new Formatter()
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .addDirectory(logDir.toAbsolutePath().toString())
                .setMetadataLogDirectory(logDir.toAbsolutePath().toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                // The formatter narrates to stdout; nobody reads that in-process.
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .run();
    }
}
