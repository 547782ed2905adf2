package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Option;

/** A command that runs one of Sluice's Kafka-reading jobs, as deployed or bounded. */
abstract class StreamingJobCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "Path of sluice.yaml.")
    Path config;

    @Option(
            names = "--bounded",
            description = "Stop at the topics' current end offsets instead of running forever.")
    boolean bounded;

    /** The job's name, e.g. {@code ingest}: also its checkpoint directory. */
    abstract String job();

    /** Adds the job's pipelines to {@code env}. */
    abstract void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded);

    /** The config the job runs with: as loaded, unless a command's options change it. */
    SluiceConfig adjust(SluiceConfig loaded) {
        return loaded;
    }

    @Override
    public Integer call() throws Exception {
        SluiceConfig cfg = adjust(SluiceConfig.load(config));
        StreamExecutionEnvironment env = Jobs.environment(cfg, job());
        define(env, cfg, bounded);
        env.execute("sluice-" + job());
        return 0;
    }
}
