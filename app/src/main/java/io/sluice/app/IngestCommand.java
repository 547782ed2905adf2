package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.ingest.IngestJob;
import io.sluice.lake.LandingScan;
import java.io.IOException;
import java.util.Optional;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;

/** {@code sluice ingest}: the Kafka to Avro landing job, as deployed. */
@Command(
        name = "ingest",
        mixinStandardHelpOptions = true,
        description = {
            "Run the ingest job: Kafka topics into the exactly-once Avro landing zone.",
            "It resumes from the newest checkpoint an earlier run retained (or --from-savepoint);"
                    + " a start without state over landed data needs --fresh."
        })
final class IngestCommand extends StreamingJobCommand {

    @Override
    String job() {
        return "ingest";
    }

    @Override
    void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        IngestJob.define(env, config, bounded);
    }

    @Override
    void afterBoundedRun(SluiceConfig config) throws IOException {
        IngestJob.publishRemainingHours(config);
    }

    @Override
    Optional<String> existingOutput(SluiceConfig config) throws IOException {
        long hours = 0;
        for (TableConfig t : config.tables()) {
            hours +=
                    LandingScan.scan(new Path(config.tablePath("raw", t.name()))).stream()
                            .filter(h -> !h.committed().isEmpty())
                            .count();
        }
        return hours == 0
                ? Optional.empty()
                : Optional.of("raw/ already holds " + hours + " landed hours");
    }
}
