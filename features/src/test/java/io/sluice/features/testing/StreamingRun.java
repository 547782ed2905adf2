package io.sluice.features.testing;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.job.FeaturesJob;
import io.sluice.generate.GeneratedRecord;
import io.sluice.testing.TestClusters;
import io.sluice.testing.Topics;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The streaming features job, bounded, over generated records sent to a real broker. */
public final class StreamingRun {

    private StreamingRun() {}

    public static void features(
            SluiceConfig config, List<GeneratedRecord> generated, TestClusters.Kafka kafka)
            throws Exception {
        for (TableConfig t : config.tables()) {
            kafka.broker().createTopics(2, t.topic());
        }
        Topics.send(
                kafka.bootstrap(),
                generated.stream()
                        .map(r -> new ProducerRecord<>(r.topic(), r.key(), r.value()))
                        .toList());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        FeaturesJob.define(env, config, true);
        env.execute("features-bounded");
    }
}
