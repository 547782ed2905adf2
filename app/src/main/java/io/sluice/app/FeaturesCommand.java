package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.features.job.FeaturesJob;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;

/** {@code sluice features}: the streaming features job, as deployed. */
@Command(
        name = "features",
        mixinStandardHelpOptions = true,
        description =
                "Run the features job: each feature view's source topic, through the ingest"
                        + " job's parse and de-duplicate path, into tiles in the online store and"
                        + " the offline feature log.")
final class FeaturesCommand extends StreamingJobCommand {

    @Override
    String job() {
        return "features";
    }

    @Override
    void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        FeaturesJob.define(env, config, bounded);
    }
}
