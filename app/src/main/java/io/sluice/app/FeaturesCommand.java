package io.sluice.app;

import io.sluice.config.OnlineConfig;
import io.sluice.config.OnlineStore;
import io.sluice.config.SluiceConfig;
import io.sluice.features.job.FeaturesJob;
import java.net.URI;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice features}: the streaming features job, as deployed. */
@Command(
        name = "features",
        mixinStandardHelpOptions = true,
        description =
                "Run the features job: each feature view's source topic, through the ingest"
                        + " job's parse and de-duplicate path, into tiles in the online store and"
                        + " the offline feature log.")
final class FeaturesCommand extends StreamingJobCommand {

    @Option(
            names = "--online",
            description =
                    "Serve from this Redis (redis://host:port) instead of the config's online"
                            + " store: how a deployment points the job at the cluster's Redis.")
    URI online;

    @Override
    SluiceConfig adjust(SluiceConfig config) {
        if (online == null) {
            return config;
        }
        if (!("redis".equals(online.getScheme()) || "rediss".equals(online.getScheme()))
                || online.getHost() == null) {
            throw new IllegalArgumentException(
                    "--online: must be a redis:// or rediss:// URI with a host, got " + online);
        }
        return new SluiceConfig(
                config.kafka(),
                config.storage(),
                new OnlineConfig(OnlineStore.REDIS, online),
                config.checkpoint(),
                config.tables(),
                config.featureViews());
    }

    @Override
    String job() {
        return "features";
    }

    @Override
    void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        FeaturesJob.define(env, config, bounded);
    }
}
