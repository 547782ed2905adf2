package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.ingest.IngestJob;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice ingest}: the Kafka to Avro landing job, as deployed. */
@Command(
        name = "ingest",
        mixinStandardHelpOptions = true,
        description = "Run the ingest job: Kafka topics into the exactly-once Avro landing zone.")
final class IngestCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "Path of sluice.yaml.")
    Path config;

    @Option(
            names = "--bounded",
            description = "Stop at the topics' current end offsets instead of running forever.")
    boolean bounded;

    @Override
    public Integer call() throws Exception {
        SluiceConfig cfg = SluiceConfig.load(config);
        StreamExecutionEnvironment env = Jobs.environment(cfg, "ingest");
        IngestJob.define(env, cfg, bounded);
        env.execute("sluice-ingest");
        return 0;
    }
}
