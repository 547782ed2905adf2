package io.sluice.app;

import io.sluice.features.training.TrainingSetBuilder;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Where a batch job of a command runs: {@code local}, a Flink cluster in this process (or the
 * context's, under a test's MiniCluster); or {@code HOST:PORT}, the REST endpoint of a running
 * Flink cluster, to which the job is submitted with the job jar ({@link RemoteJob#jobJar}, Sluice
 * and its dependencies without Flink's), as the other commands' {@code --target} submits it. The
 * cluster provides Flink's own jars; shipping this JVM's whole class path instead would upload the
 * launcher's lib/ (Flink, the Kafka broker, DuckDB: about 190 MB more) with every job.
 *
 * @param host empty for local
 * @param port the REST port of a remote cluster
 * @param parallelism the job's parallelism, or null for the environment's default (a core each
 *     here, or the cluster's {@code parallelism.default})
 */
record FlinkTarget(String host, int port, Integer parallelism) {

    static FlinkTarget parse(String text, Integer parallelism) {
        if (parallelism != null && parallelism < 1) {
            throw new IllegalArgumentException("--parallelism: at least 1, got " + parallelism);
        }
        String t = text.strip();
        if (t.equals("local")) {
            return new FlinkTarget("", 0, parallelism);
        }
        int colon = t.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(
                    "--target: 'local' or a Flink REST endpoint HOST:PORT (such as"
                            + " jobmanager:8081), got '"
                            + text
                            + "'");
        }
        return new FlinkTarget(t.substring(0, colon), port, parallelism);
    }

    boolean local() {
        return host.isEmpty();
    }

    /** The REST endpoint of a remote cluster, e.g. {@code http://jobmanager:8081}. */
    java.net.URI restUri() {
        return java.net.URI.create("http://" + host + ":" + port);
    }

    Supplier<StreamExecutionEnvironment> environment() {
        if (local()) {
            // In a FlinkDeployment's application mode this is the cluster's environment, with
            // its parallelism.default; run from a shell, a MiniCluster with one slot per core.
            return parallelism != null
                    ? TrainingSetBuilder.local(parallelism)
                    : StreamExecutionEnvironment::getExecutionEnvironment;
        }
        String jar = RemoteJob.jobJar().toString();
        return () -> {
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createRemoteEnvironment(
                            host, port, new Configuration(), jar);
            if (parallelism != null) {
                env.setParallelism(parallelism);
            }
            return env;
        };
    }
}
