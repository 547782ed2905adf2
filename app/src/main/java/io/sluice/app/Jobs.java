package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** How every Sluice job sets up its Flink environment from {@code sluice.yaml}. */
final class Jobs {

    private Jobs() {}

    /** The environment of a deployed job: local when run outside a cluster. */
    static StreamExecutionEnvironment environment(SluiceConfig config) {
        return checkpointed(
                StreamExecutionEnvironment.getExecutionEnvironment(flinkConfig(config)),
                config.checkpoint().interval());
    }

    /** An in-process MiniCluster for local mode. */
    static StreamExecutionEnvironment local(
            SluiceConfig config, int parallelism, Duration checkpointInterval) {
        return checkpointed(
                StreamExecutionEnvironment.createLocalEnvironment(parallelism, flinkConfig(config)),
                checkpointInterval);
    }

    private static Configuration flinkConfig(SluiceConfig config) {
        Configuration conf = new Configuration();
        config.checkpoint()
                .dir()
                .ifPresent(
                        dir ->
                                conf.set(
                                        CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                                        dir.toString()));
        return conf;
    }

    private static StreamExecutionEnvironment checkpointed(
            StreamExecutionEnvironment env, Duration interval) {
        env.enableCheckpointing(interval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
        return env;
    }
}
