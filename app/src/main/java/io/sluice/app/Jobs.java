package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * How every Sluice job sets up its Flink environment. Checkpoints always go to a file system, never
 * to JobManager memory, which caps state at a few megabytes.
 */
public final class Jobs {

    private Jobs() {}

    /**
     * The environment of a deployed job (local when run outside a cluster). Checkpoints go to
     * {@code checkpoint.dir}, or else to {@code <storage root>/_flink/<job>}.
     */
    static StreamExecutionEnvironment environment(SluiceConfig config, String job) {
        return environment(config, job, StartPoint.FRESH);
    }

    /** The environment of a deployed job, restoring the state {@code start} names. */
    static StreamExecutionEnvironment environment(
            SluiceConfig config, String job, StartPoint start) {
        Configuration conf = flinkConfig(checkpointDir(config, job));
        start.applyTo(conf);
        return checkpointed(
                StreamExecutionEnvironment.getExecutionEnvironment(conf),
                config.checkpoint().interval());
    }

    /** Where a job's checkpoints go: {@code checkpoint.dir}, or {@code <root>/_flink/<job>}. */
    static URI checkpointDir(SluiceConfig config, String job) {
        return config.checkpoint()
                .dir()
                .orElseGet(() -> URI.create(config.rootUri() + "/_flink/" + job));
    }

    /** An in-process MiniCluster for local mode, checkpointing to {@code checkpointDir}. */
    public static StreamExecutionEnvironment local(
            int parallelism, Duration checkpointInterval, Path checkpointDir) {
        return checkpointed(
                StreamExecutionEnvironment.createLocalEnvironment(
                        parallelism, flinkConfig(checkpointDir.toUri())),
                checkpointInterval);
    }

    private static Configuration flinkConfig(URI checkpointDir) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir.toString());
        // A job killed or cancelled keeps its newest checkpoint, so that the next start of the same
        // job resumes from it (see RetainedCheckpoints); a job that finishes cleans up after
        // itself.
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        return conf;
    }

    private static StreamExecutionEnvironment checkpointed(
            StreamExecutionEnvironment env, Duration interval) {
        env.enableCheckpointing(interval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
        return env;
    }
}
