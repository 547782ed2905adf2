package io.sluice.kafka;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.BrokerServer;
import kafka.server.ControllerServer;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.server.Server;
import kafka.server.SharedServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.server.fault.LoggingFaultHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * A real Apache Kafka broker running inside the current JVM: a single KRaft node acting as both
 * broker and controller, listening on free loopback ports.
 *
 * <p>Sluice's local mode and its tests need a genuine broker, with transactions and read-committed
 * consumers, but Docker (and therefore Testcontainers) is not available. Mocks cannot exercise
 * exactly-once semantics, so this starts the actual Kafka server classes in-process instead.
 * Several instances may run side by side in one JVM.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

    /** A group no client uses, whose offsets are looked up to wait for the group coordinator. */
    private static final String COORDINATOR_PROBE_GROUP = "sluice-embedded-kafka-probe";

    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    private final Path logDir;
    private final boolean deleteLogDirOnClose;
    private final ControllerServer controller;
    private final BrokerServer broker;
    private final String bootstrapServers;
    private final Admin admin;
    private boolean closed;

    private EmbeddedKafka(
            Path logDir,
            boolean deleteLogDirOnClose,
            ControllerServer controller,
            BrokerServer broker,
            String bootstrapServers,
            Admin admin) {
        this.logDir = logDir;
        this.deleteLogDirOnClose = deleteLogDirOnClose;
        this.controller = controller;
        this.broker = broker;
        this.bootstrapServers = bootstrapServers;
        this.admin = admin;
    }

    /** Starts a broker on a fresh temporary directory that {@link #close()} deletes. */
    public static EmbeddedKafka start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-kafka-");
        } catch (IOException e) {
            throw new IllegalStateException("Cannot create a temporary Kafka log directory", e);
        }
        return start(dir, true);
    }

    /**
     * Starts a broker storing its data in {@code logDir}. A directory formatted by an earlier run
     * is reused as is, so topics and committed data survive a restart.
     */
    public static EmbeddedKafka start(Path logDir) {
        return start(logDir, 0, false);
    }

    /**
     * Starts a broker storing its data in {@code logDir} and listening for clients on {@code port}
     * of the loopback address (0 for a free one), for a broker that clients find again after it
     * restarts. A directory formatted by an earlier run is reused as is.
     */
    public static EmbeddedKafka start(Path logDir, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
        return start(logDir, port, false);
    }

    private static EmbeddedKafka start(Path logDir, boolean deleteLogDirOnClose) {
        return start(logDir, 0, deleteLogDirOnClose);
    }

    private static EmbeddedKafka start(Path logDir, int port, boolean deleteLogDirOnClose) {
        PreboundSockets sockets = new PreboundSockets();
        ControllerServer controller = null;
        BrokerServer broker = null;
        Admin admin = null;
        long startNanos = System.nanoTime();
        try {
            Files.createDirectories(logDir);
            int brokerPort = sockets.bind(KraftNode.BROKER_LISTENER, port);
            int controllerPort = sockets.bind(KraftNode.CONTROLLER_LISTENER, 0);
            KafkaConfig config =
                    new KafkaConfig(
                            KraftNode.config(logDir, brokerPort, controllerPort, STARTUP_TIMEOUT),
                            false);
            KraftNode.formatIfNeeded(logDir);

            Tuple2<MetaPropertiesEnsemble, BootstrapMetadata> dirs =
                    KafkaRaftServer.initializeLogDirs(config, LOG, "");
            String clusterId = dirs._1().clusterId().get();
            SharedServer shared =
                    new SharedServer(
                            config,
                            dirs._1(),
                            Time.SYSTEM,
                            Server.initializeMetrics(config, Time.SYSTEM, clusterId),
                            CompletableFuture.completedFuture(
                                    Map.of(
                                            KraftNode.NODE_ID,
                                            new InetSocketAddress(KraftNode.HOST, controllerPort))),
                            List.of(),
                            // The standard factory halts the JVM on fatal faults, which would
                            // take the host application or test runner down with the broker.
                            (name, fatal, action) -> new LoggingFaultHandler(name, action),
                            sockets);
            controller = new ControllerServer(shared, KafkaRaftServer.configSchema(), dirs._2());
            broker = new BrokerServer(shared);
            // Same order as KafkaRaftServer: the broker needs the controller's endpoints.
            controller.startup();
            broker.startup();

            String bootstrapServers = KraftNode.HOST + ":" + brokerPort;
            admin =
                    Admin.create(
                            Map.of(
                                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    bootstrapServers,
                                    AdminClientConfig.CLIENT_ID_CONFIG,
                                    "sluice-embedded-kafka-admin"));
            admin.describeCluster().nodes().get(STARTUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            // The group coordinator's topic is created on the first request that looks for it,
            // and a consumer's offset commit before the coordinator has loaded fails with a
            // retriable error, which Flink's Kafka source logs as a warning with a stack trace at
            // the first checkpoint. Looking up a group's offsets waits until it has loaded.
            admin.listConsumerGroupOffsets(COORDINATOR_PROBE_GROUP)
                    .partitionsToOffsetAndMetadata()
                    .get(STARTUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info(
                    "Embedded Kafka started at {} in {} ms (log dir {})",
                    bootstrapServers,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                    logDir);
            return new EmbeddedKafka(
                    logDir, deleteLogDirOnClose, controller, broker, bootstrapServers, admin);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            shutdown(admin, broker, controller);
            sockets.closeUnused();
            if (deleteLogDirOnClose) {
                deleteQuietly(logDir);
            }
            throw new IllegalStateException(
                    "Embedded Kafka failed to start (timeout "
                            + STARTUP_TIMEOUT.toSeconds()
                            + "s, log dir "
                            + logDir
                            + "): "
                            + e.getMessage(),
                    e);
        }
    }

    /** The {@code bootstrap.servers} value for clients, e.g. {@code 127.0.0.1:40123}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Creates the topics that do not exist yet (existing ones are left untouched) and waits until
     * every partition of each topic has a leader, so clients can use them right away.
     */
    public void createTopics(int partitions, String... names) {
        List<NewTopic> topics =
                Arrays.stream(names).map(n -> new NewTopic(n, partitions, (short) 1)).toList();
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        try {
            for (KafkaFuture<Void> created : admin.createTopics(topics).values().values()) {
                try {
                    created.get(STARTUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            // The controller acknowledges creation before the broker has applied it, and no
            // admin call waits for partition leaders: poll, within the deadline.
            while (!allPartitionsLed(names)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("partitions still have no leader");
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted creating topics " + List.of(names), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Could not create topics " + List.of(names), e);
        }
    }

    private boolean allPartitionsLed(String... names) throws InterruptedException {
        try {
            Map<String, TopicDescription> descriptions =
                    admin.describeTopics(List.of(names)).allTopicNames().get();
            return descriptions.values().stream()
                    .flatMap(d -> d.partitions().stream())
                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        } catch (ExecutionException e) {
            return false;
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shutdown(admin, broker, controller);
        if (deleteLogDirOnClose) {
            deleteQuietly(logDir);
        }
    }

    private static void shutdown(Admin admin, BrokerServer broker, ControllerServer controller) {
        if (admin != null) {
            admin.close(Duration.ZERO);
        }
        // Broker first: like KafkaRaftServer, it still talks to the controller while stopping.
        if (broker != null) {
            broker.shutdown(SHUTDOWN_TIMEOUT);
            broker.awaitShutdown();
        }
        if (controller != null) {
            controller.shutdown();
            controller.awaitShutdown();
        }
    }

    private static void deleteQuietly(Path dir) {
        try {
            Utils.delete(dir.toFile());
        } catch (IOException e) {
            LOG.warn("Could not delete Kafka log directory {}", dir, e);
        }
    }
}
