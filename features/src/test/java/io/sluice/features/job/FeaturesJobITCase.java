package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.online.LocalRedis;
import io.sluice.features.testing.OnlineCheck;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.Topics;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The features job on a MiniCluster with a real broker, into a real SQLite file and a real Redis:
 * after a bounded run, every feature of sampled entities at sampled times equals the definition
 * computed from the generated events.
 */
class FeaturesJobITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    private static LocalRedis redis;

    @TempDir Path root;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = new LocalRedis();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    @Test
    void sqliteHoldsExactlyTheDefinedValues() throws Exception {
        SluiceConfig config = config(null);
        assertThat(OnlineCheck.exact(config, run(config))).isGreaterThan(1_000);
    }

    @Test
    void redisHoldsExactlyTheDefinedValues() throws Exception {
        SluiceConfig config = config(redis.uri());
        assertThat(OnlineCheck.exact(config, run(config))).isGreaterThan(1_000);
    }

    private SluiceConfig config(URI redisUri) {
        SluiceConfig shop =
                TestConfigs.shop(
                        root,
                        KAFKA.bootstrap(),
                        "f" + UUID.randomUUID().toString().substring(0, 8));
        if (redisUri == null) {
            return shop;
        }
        return new SluiceConfig(
                shop.kafka(),
                shop.storage(),
                new OnlineConfig(io.sluice.config.OnlineStore.REDIS, redisUri),
                shop.checkpoint(),
                shop.tables(),
                shop.featureViews());
    }

    private List<GeneratedRecord> run(SluiceConfig config) throws Exception {
        for (TableConfig t : config.tables()) {
            KAFKA.broker().createTopics(2, t.topic());
        }
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(
                        config.tables(),
                        GeneratorOptions.defaults(4_000, 23)
                                .withStart(
                                        Instant.now()
                                                .truncatedTo(ChronoUnit.HOURS)
                                                .minus(5, ChronoUnit.HOURS)))
                .run(generated::add);
        Topics.send(
                KAFKA.bootstrap(),
                generated.stream()
                        .map(r -> new ProducerRecord<>(r.topic(), r.key(), r.value()))
                        .toList());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        FeaturesJob.define(env, config, true);
        env.execute("features-it");
        return generated;
    }
}
