package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.ingest.IngestJob;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;

/** {@code sluice ingest}: the Kafka to Avro landing job, as deployed. */
@Command(
        name = "ingest",
        mixinStandardHelpOptions = true,
        description = "Run the ingest job: Kafka topics into the exactly-once Avro landing zone.")
final class IngestCommand extends StreamingJobCommand {

    @Override
    String job() {
        return "ingest";
    }

    @Override
    void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        IngestJob.define(env, config, bounded);
    }
}
