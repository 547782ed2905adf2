package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.features.job.FeaturesJob;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice features}: the streaming features job, as deployed. */
@Command(
        name = "features",
        mixinStandardHelpOptions = true,
        description =
                "Run the features job: each feature view's source topic, through the ingest"
                        + " job's parse and de-duplicate path, into tiles in the online store.")
final class FeaturesCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "Path of sluice.yaml.")
    Path config;

    @Option(
            names = "--bounded",
            description = "Stop at the topics' current end offsets instead of running forever.")
    boolean bounded;

    @Override
    public Integer call() throws Exception {
        SluiceConfig cfg = SluiceConfig.load(config);
        StreamExecutionEnvironment env = Jobs.environment(cfg, "features");
        FeaturesJob.define(env, cfg, bounded);
        env.execute("sluice-features");
        return 0;
    }
}
