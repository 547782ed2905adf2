package io.sluice.app;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.GlobalConfiguration;

/** What {@code sluice cluster} starts from: Flink's jars, checked, and the files it writes. */
final class LocalClusterConfig {

    private LocalClusterConfig() {}

    /** Flink's jars in {@code lib}, which must hold its runtime and nothing of Sluice. */
    static List<String> classPath(Path lib) {
        List<String> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars =
                    files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                            .map(f -> f.toAbsolutePath().toString())
                            .sorted()
                            .toList();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "--flink-lib: cannot list " + lib + " (" + e.getMessage() + ")", e);
        }
        if (jars.stream()
                .noneMatch(j -> Path.of(j).getFileName().toString().startsWith("flink-runtime-"))) {
            throw new IllegalArgumentException(
                    "--flink-lib: "
                            + lib
                            + " holds no flink-runtime jar; ./mvnw package builds it in"
                            + " cluster/target/flink-lib");
        }
        if (jars.stream().anyMatch(j -> Path.of(j).getFileName().toString().startsWith("sluice"))) {
            throw new IllegalArgumentException(
                    "--flink-lib: "
                            + lib
                            + " holds a Sluice jar: jobs must reach the cluster as a job jar");
        }
        return jars;
    }

    /**
     * Writes the cluster's {@code conf/} (Flink's configuration file and the log4j configuration of
     * both processes) and creates its {@code log/}, {@code plugins/} and {@code tmp/} directories.
     */
    static void write(
            LocalFlinkCluster.Options options,
            Path conf,
            Path logs,
            Path plugins,
            int rpcPort,
            int restPort,
            PrintWriter out)
            throws IOException {
        Files.createDirectories(conf);
        Files.createDirectories(logs);
        // Flink's optional file systems, none by default (an s3: lake would need the S3 plugin
        // here and the cluster's s3.* settings).
        Files.createDirectories(plugins);
        Path tmp = Files.createDirectories(options.dir().resolve("tmp")).toAbsolutePath();
        String yaml =
                """
                # Written by `sluice cluster`: a standalone session cluster on this machine.
                jobmanager.rpc.address: 127.0.0.1
                jobmanager.rpc.port: %d
                jobmanager.bind-host: 127.0.0.1
                jobmanager.memory.process.size: %s
                taskmanager.host: 127.0.0.1
                taskmanager.bind-host: 127.0.0.1
                taskmanager.memory.process.size: %s
                # The jobs keep their state on the heap (hashmap): little managed memory.
                taskmanager.memory.managed.fraction: 0.1
                taskmanager.numberOfTaskSlots: %d
                parallelism.default: %d
                # The REST API (and web UI) on this machine only: it runs any jar it is sent.
                rest.address: 127.0.0.1
                rest.bind-address: 127.0.0.1
                rest.port: %d
                web.tmpdir: %s
                io.tmp.dirs: %s
                # A lost task manager is noticed within seconds (its heartbeat RPCs fail) ...
                heartbeat.interval: 1000
                heartbeat.timeout: 20000
                # ... and each job is restarted from its latest checkpoint; a restart waits up to
                # slot.request.timeout for a task manager to offer slots, such as the new one
                # started when the old one died.
                restart-strategy.type: exponential-delay
                restart-strategy.exponential-delay.initial-backoff: 1s
                restart-strategy.exponential-delay.max-backoff: 10s
                slot.request.timeout: 300000
                """
                        .formatted(
                                rpcPort,
                                options.jobManagerMemory(),
                                options.taskManagerMemory(),
                                options.slots(),
                                options.parallelism(),
                                restPort,
                                tmp,
                                tmp);
        if (!options.javaOpts().isBlank()) {
            // As Flink's scripts do, the job and task managers start with these flags.
            yaml +=
                    CoreOptions.FLINK_JVM_OPTIONS.key()
                            + ": \""
                            + options.javaOpts().replace("\\", "\\\\").replace("\"", "\\\"")
                            + "\"\n";
        }
        Files.writeString(conf.resolve(GlobalConfiguration.FLINK_CONF_FILENAME), yaml);
        Files.writeString(
                conf.resolve("log4j.properties"),
                """
                rootLogger.level = INFO
                rootLogger.appenderRef.file.ref = MainAppender
                appender.main.name = MainAppender
                appender.main.type = File
                appender.main.append = false
                appender.main.fileName = ${sys:log.file}
                appender.main.layout.type = PatternLayout
                appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
                logger.kafka.name = org.apache.kafka
                logger.kafka.level = WARN
                """);
        out.println("config: " + conf.resolve(GlobalConfiguration.FLINK_CONF_FILENAME));
        out.flush();
    }
}
