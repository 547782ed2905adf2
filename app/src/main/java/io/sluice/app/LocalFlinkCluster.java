package io.sluice.app;

import io.sluice.net.Ports;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

/**
 * A standalone Flink session cluster on this machine: a job manager and a task manager, each a JVM
 * of its own started from Flink's jars only ({@code flink-lib}: what a Flink distribution's {@code
 * lib/} holds, and nothing of Sluice), with a {@code config.yaml} written here, as Flink's {@code
 * bin/jobmanager.sh} and {@code bin/taskmanager.sh} start them. Jobs reach it through its REST API
 * with the job jar, and run from that jar through Flink's user-code class loader.
 *
 * <p>It watches its task manager the way a Kubernetes Deployment watches a pod: when the process
 * dies (a crash, an out-of-memory kill, {@code kill -9}), a new one is started, and the job manager
 * restarts the jobs on it from their latest checkpoints. When the job manager dies, the cluster
 * stops.
 */
final class LocalFlinkCluster implements AutoCloseable {

    static final String LIB_PROPERTY = "sluice.flink.lib";
    static final String LIB_ENV = "SLUICE_FLINK_LIB";

    private static final ConfigOption<String> JOB_MANAGER_OPTS = CoreOptions.FLINK_JM_JVM_OPTIONS;
    private static final ConfigOption<String> TASK_MANAGER_OPTS = CoreOptions.FLINK_TM_JVM_OPTIONS;

    private static final String JOB_MANAGER =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TASK_MANAGER =
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";

    /**
     * The module flags Flink's distribution passes to its JVMs on Java 17 ({@code
     * env.java.default-opts.all} of its {@code config.yaml}).
     */
    private static final List<String> JAVA_OPENS =
            List.of(
                    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
                    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.text=ALL-UNNAMED",
                    "--add-opens=java.base/java.time=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    /** A task manager that dies sooner than this after its start is not started again. */
    private static final Duration CRASH_LOOP = Duration.ofSeconds(15);

    /**
     * What the cluster is started with.
     *
     * @param lib Flink's jars: the job and task managers' whole class path
     * @param dir the cluster's directory: conf/, log/, tmp/
     * @param restPort the REST port on 127.0.0.1, or 0 for a free one
     * @param slots task slots of the task manager
     * @param parallelism {@code parallelism.default} of the jobs
     * @param jobManagerMemory {@code jobmanager.memory.process.size}, e.g. {@code 768m}
     * @param taskManagerMemory {@code taskmanager.memory.process.size}, e.g. {@code 1g}
     * @param javaOpts {@code env.java.opts.all}: more JVM flags of both, or empty
     */
    record Options(
            Path lib,
            Path dir,
            int restPort,
            int slots,
            int parallelism,
            String jobManagerMemory,
            String taskManagerMemory,
            String javaOpts) {}

    private final Options options;
    private final PrintWriter out;
    private final Path conf;
    private final Path logs;
    private final Path plugins;
    private final List<String> classPath;
    private final int restPort;
    private final CompletableFuture<Integer> stopped = new CompletableFuture<>();
    private Process jobManager;
    private Process taskManager;
    private int taskManagers;
    private volatile boolean stopping;

    private LocalFlinkCluster(Options options, PrintWriter out, List<String> classPath, int port)
            throws IOException {
        this.options = options;
        this.out = out;
        this.conf = options.dir().resolve("conf");
        this.logs = options.dir().resolve("log");
        this.plugins = options.dir().resolve("plugins").toAbsolutePath();
        this.classPath = classPath;
        this.restPort = port;
    }

    /**
     * Writes the configuration, starts the job manager and a task manager, and returns once the
     * task manager has registered with the job manager.
     */
    static LocalFlinkCluster start(Options options, PrintWriter out)
            throws IOException, InterruptedException {
        List<String> classPath = LocalClusterConfig.classPath(options.lib());
        int rest = options.restPort() == 0 ? Ports.unassigned() : options.restPort();
        LocalFlinkCluster cluster = new LocalFlinkCluster(options, out, classPath, rest);
        try {
            LocalClusterConfig.write(
                    options,
                    cluster.conf,
                    cluster.logs,
                    cluster.plugins,
                    Ports.unassigned(rest),
                    rest,
                    out);
            cluster.startJobManager();
            cluster.startTaskManager();
            cluster.awaitTaskManager(Duration.ofMinutes(3));
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** The REST endpoint, e.g. {@code http://127.0.0.1:8081}. */
    URI restUri() {
        return URI.create("http://127.0.0.1:" + restPort);
    }

    /** Completes with the exit status the cluster ends with: 1 when its job manager died. */
    CompletableFuture<Integer> stopped() {
        return stopped;
    }

    private Configuration flinkConfig() {
        return GlobalConfiguration.loadConfiguration(conf.toString());
    }

    private synchronized void startJobManager() throws IOException {
        // The JVM flags and memory settings Flink's scripts compute (BashJavaUtils).
        Configuration config = flinkConfig();
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(config);
        List<String> jvm = split(JobManagerProcessUtils.generateJvmParametersStr(spec, config));
        List<String> dynamic = split(JobManagerProcessUtils.generateDynamicConfigsStr(spec));
        jobManager =
                launch("jobmanager", JOB_MANAGER, javaOpts(config, JOB_MANAGER_OPTS, jvm), dynamic);
        out.printf(
                "jobmanager: pid %d, log %s%n", jobManager.pid(), logs.resolve("jobmanager.log"));
        out.flush();
        jobManager.onExit().thenAccept(this::jobManagerExited);
    }

    private synchronized void startTaskManager() throws IOException {
        Configuration config = flinkConfig();
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(config);
        List<String> jvm = split(ProcessMemoryUtils.generateJvmParametersStr(spec));
        List<String> dynamic = split(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec));
        int n = ++taskManagers;
        String name = "taskmanager-" + n;
        Process tm = launch(name, TASK_MANAGER, javaOpts(config, TASK_MANAGER_OPTS, jvm), dynamic);
        taskManager = tm;
        long started = System.nanoTime();
        out.printf("taskmanager %d: pid %d, log %s%n", n, tm.pid(), logs.resolve(name + ".log"));
        out.flush();
        tm.onExit().thenAccept(p -> taskManagerExited(n, p, started));
    }

    private Process launch(String name, String mainClass, List<String> jvm, List<String> dynamic)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvm);
        command.addAll(JAVA_OPENS);
        command.add("-Dlog.file=" + logs.resolve(name + ".log").toAbsolutePath());
        command.add(
                "-Dlog4j.configurationFile=file:"
                        + conf.resolve("log4j.properties").toAbsolutePath());
        command.add("-cp");
        command.add(String.join(java.io.File.pathSeparator, classPath));
        command.add(mainClass);
        command.add("--configDir");
        command.add(conf.toAbsolutePath().toString());
        command.addAll(dynamic);
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(logs.resolve(name + ".out").toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toAbsolutePath().toString());
        builder.environment().put("FLINK_PLUGINS_DIR", plugins.toString());
        return builder.start();
    }

    private void awaitTaskManager(Duration timeout) throws IOException, InterruptedException {
        FlinkRest rest = new FlinkRest(restUri());
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!jobManager.isAlive() || !taskManager.isAlive()) {
                throw new IOException(
                        "the "
                                + (jobManager.isAlive() ? "task" : "job")
                                + " manager exited during start-up; see its log in "
                                + logs);
            }
            try {
                if (rest.get("/taskmanagers").path("taskmanagers").size() > 0) {
                    return;
                }
            } catch (IOException notYet) {
                // the REST endpoint is not up yet
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "no task manager registered within "
                                + timeout
                                + "; see the logs in "
                                + logs);
            }
            // A task manager's registration is only seen by asking the REST API: poll it.
            Thread.sleep(200);
        }
    }

    private void taskManagerExited(int n, Process p, long started) {
        if (stopping) {
            return;
        }
        Duration lived = Duration.ofNanos(System.nanoTime() - started);
        out.printf(
                "taskmanager %d (pid %d) exited with status %d after %ds%n",
                n, p.pid(), p.exitValue(), lived.toSeconds());
        out.flush();
        if (lived.compareTo(CRASH_LOOP) < 0) {
            out.printf(
                    "taskmanager %d died within %ds of its start: not starting another; see %s%n",
                    n, CRASH_LOOP.toSeconds(), logs.resolve("taskmanager-" + n + ".log"));
            out.flush();
            stop(1);
            return;
        }
        try {
            startTaskManager();
        } catch (IOException | RuntimeException e) {
            out.println("cannot start a new task manager: " + e);
            out.flush();
            stop(1);
        }
    }

    private void jobManagerExited(Process p) {
        if (stopping) {
            return;
        }
        out.printf(
                "jobmanager (pid %d) exited with status %d; see %s%n",
                p.pid(), p.exitValue(), logs.resolve("jobmanager.log"));
        out.flush();
        stop(1);
    }

    private void stop(int status) {
        shutDown();
        stopped.complete(status);
    }

    /** Stops the job and task managers: SIGTERM, and SIGKILL after 30 seconds. */
    @Override
    public void close() {
        shutDown();
        stopped.complete(0);
    }

    private void shutDown() {
        List<Process> running = new ArrayList<>();
        synchronized (this) {
            stopping = true;
            Stream.of(taskManager, jobManager).filter(p -> p != null).forEach(running::add);
        }
        running.forEach(Process::destroy);
        for (Process p : running) {
            try {
                if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The memory flags Flink computed, then {@code env.java.opts.all} and the role's own {@code
     * env.java.opts.jobmanager|taskmanager}, in the order Flink's scripts put them.
     */
    private static List<String> javaOpts(
            Configuration config, ConfigOption<String> role, List<String> memory) {
        List<String> flags = new ArrayList<>(memory);
        flags.addAll(split(config.get(CoreOptions.FLINK_JVM_OPTIONS)));
        flags.addAll(split(config.get(role)));
        return flags;
    }

    private static List<String> split(String flags) {
        return Arrays.stream(flags.strip().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }
}
