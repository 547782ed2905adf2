package io.sluice.app;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice cluster}: a standalone Flink session cluster on this machine, a job manager and a
 * task manager as processes of their own from Flink's jars only, to which {@code sluice
 * ingest|features|compact --target HOST:PORT} submit the job jar as to a real cluster.
 */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description = {
            "Run a local standalone Flink cluster until stopped: a job manager and a task manager,"
                    + " each a JVM started from Flink's own jars (nothing of Sluice on their class"
                    + " path), with the REST API on 127.0.0.1. Submit jobs to it with `sluice"
                    + " ingest|features|compact --target 127.0.0.1:PORT`.",
            "A task manager that dies is replaced by a new one, and the jobs restart on it from"
                    + " their latest checkpoints. The last line printed on start is the REST"
                    + " address."
        })
final class ClusterCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--port",
            defaultValue = "8081",
            description = "REST port on 127.0.0.1 (default ${DEFAULT-VALUE}; 0 picks a free port).")
    int port;

    @Option(
            names = "--dir",
            defaultValue = "./flink-cluster",
            description =
                    "The cluster's directory: conf/config.yaml, log/, tmp/ (default"
                            + " ${DEFAULT-VALUE}).")
    Path dir;

    @Option(
            names = "--slots",
            defaultValue = "4",
            description = "Task slots of the task manager (default ${DEFAULT-VALUE}).")
    int slots;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "The jobs' default parallelism (default ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--jobmanager-memory",
            defaultValue = "768m",
            description = "jobmanager.memory.process.size (default ${DEFAULT-VALUE}).")
    String jobManagerMemory;

    @Option(
            names = "--taskmanager-memory",
            defaultValue = "1g",
            description = "taskmanager.memory.process.size (default ${DEFAULT-VALUE}).")
    String taskManagerMemory;

    @Option(
            names = "--java-opts",
            defaultValue = "",
            description =
                    "More JVM flags of the job and task managers, written to the cluster's"
                            + " config as Flink's env.java.opts.all (for example a profiler"
                            + " agent or -XX:+UseSerialGC).")
    String javaOpts;

    @Option(
            names = "--flink-lib",
            description =
                    "Flink's jars, the cluster's whole class path (default: "
                            + LocalFlinkCluster.LIB_ENV
                            + ", which the sluice launcher sets to cluster/target/flink-lib).")
    Path flinkLib;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be between 0 and 65535, got " + port);
        }
        if (slots < 1) {
            throw new IllegalArgumentException("--slots must be at least 1, got " + slots);
        }
        if (parallelism < 1 || parallelism > slots) {
            throw new IllegalArgumentException(
                    "--parallelism must be between 1 and --slots ("
                            + slots
                            + "), got "
                            + parallelism);
        }
        memory("--jobmanager-memory", jobManagerMemory);
        memory("--taskmanager-memory", taskManagerMemory);
        Path lib = flinkLib != null ? flinkLib : defaultLib();
        PrintWriter out = spec.commandLine().getOut();
        out.println("flink lib: " + lib.toAbsolutePath());
        LocalFlinkCluster cluster =
                LocalFlinkCluster.start(
                        new LocalFlinkCluster.Options(
                                lib,
                                dir.toAbsolutePath(),
                                port,
                                slots,
                                parallelism,
                                jobManagerMemory,
                                taskManagerMemory,
                                javaOpts),
                        out);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    out.println("sluice cluster: stopping");
                                    out.flush();
                                    cluster.close();
                                    out.println("sluice cluster: stopped");
                                    out.flush();
                                },
                                "sluice-cluster-shutdown"));
        // The last line printed on start: scripts and tests wait for it.
        out.println("rest: " + cluster.restUri());
        out.flush();
        return cluster.stopped().get();
    }

    private static Path defaultLib() {
        String named =
                System.getProperty(
                        LocalFlinkCluster.LIB_PROPERTY, System.getenv(LocalFlinkCluster.LIB_ENV));
        if (named == null || named.isBlank()) {
            throw new IllegalArgumentException(
                    "--flink-lib: not given, and "
                            + LocalFlinkCluster.LIB_ENV
                            + " is not set (the sluice launcher sets it to"
                            + " cluster/target/flink-lib)");
        }
        return Path.of(named);
    }

    private static void memory(String option, String value) {
        try {
            org.apache.flink.configuration.MemorySize.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    option + ": a memory size such as 1g or 768m, got '" + value + "'");
        }
    }
}
