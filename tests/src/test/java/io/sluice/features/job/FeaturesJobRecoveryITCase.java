package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.EventStreams;
import io.sluice.event.Parsed;
import io.sluice.event.ParsingDeserializer;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.LogCapture;
import io.sluice.features.testing.OnlineCheck;
import io.sluice.generate.GeneratedRecord;
import io.sluice.redis.LocalRedis;
import io.sluice.testing.Await;
import io.sluice.testing.FailOnce;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.Topics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The features job survives trouble in the middle of a stream and still ends with exact values: a
 * task failure (restored from the last checkpoint, so some tiles are rewritten with versions the
 * store already has), and a Redis outage (the server stopped, then started again).
 */
class FeaturesJobRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @TempDir Path root;

    @Test
    void aTaskFailureInTheMiddleStillEndsWithExactValues() throws Exception {
        SluiceConfig config = purchasesOnly(null);
        List<GeneratedRecord> generated = Expected.stream(config, 3_000, 31);
        try (Run run = new Run(config, generated.size())) {
            List<GeneratedRecord> firstHalf = generated.subList(0, generated.size() / 2);
            run.send(firstHalf);
            Await.until(
                    "tiles of the first half are online", TIMEOUT, () -> run.hasTiles(firstHalf));
            FailOnce.arm();
            run.send(generated.subList(generated.size() / 2, generated.size()));
            run.finish();
        }
        assertThat(FailOnce.fired()).as("the injected failure happened").isTrue();
        assertThat(OnlineCheck.exact(config, generated)).isGreaterThan(300);
    }

    @Test
    void aRedisOutageInTheMiddleLosesNothing() throws Exception {
        try (LocalRedis redis = new LocalRedis(root.resolve("redis"));
                LogCapture log = new LogCapture(OnlineSink.class)) {
            SluiceConfig config = purchasesOnly(redis);
            List<GeneratedRecord> generated = Expected.stream(config, 3_000, 31);
            try (Run run = new Run(config, generated.size())) {
                List<GeneratedRecord> firstHalf = generated.subList(0, generated.size() / 2);
                run.send(firstHalf);
                Await.until(
                        "tiles of the first half are online",
                        TIMEOUT,
                        () -> run.hasTiles(firstHalf));
                redis.stop();
                try {
                    run.send(generated.subList(generated.size() / 2, generated.size()));
                    Await.until(
                            "the job retrying against the stopped Redis",
                            TIMEOUT,
                            () -> log.messages().stream().anyMatch(m -> m.contains("retrying in")));
                    assertThat(run.job.getJobStatus().get().isGloballyTerminalState())
                            .as("the job waits for Redis instead of failing or finishing")
                            .isFalse();
                } finally {
                    redis.start();
                }
                run.finish();
            }
            assertThat(OnlineCheck.exact(config, generated)).isGreaterThan(300);
        }
    }

    /** The reference config with only the purchases view, on a fresh topic, in SQLite or Redis. */
    private SluiceConfig purchasesOnly(LocalRedis redis) {
        SluiceConfig shop =
                TestConfigs.shop(
                        root,
                        KAFKA.bootstrap(),
                        "r" + UUID.randomUUID().toString().substring(0, 8));
        return new SluiceConfig(
                shop.kafka(),
                shop.storage(),
                redis == null
                        ? shop.online()
                        : new OnlineConfig(io.sluice.config.OnlineStoreType.REDIS, redis.uri()),
                shop.checkpoint(),
                List.of(shop.table("purchases").orElseThrow()),
                shop.featureViews().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .toList());
    }

    /** The features job for the one view, bounded at the stream's last offset, running async. */
    private static final class Run implements AutoCloseable {
        final SluiceConfig config;
        final TableConfig table;
        final JobClient job;

        Run(SluiceConfig config, int records) throws Exception {
            this.config = config;
            this.table = config.tables().get(0);
            KAFKA.broker().createTopics(1, table.topic());
            FeatureViewConfig view = config.featureViews().get(0);
            KafkaSource<Parsed> source =
                    KafkaSource.<Parsed>builder()
                            .setBootstrapServers(KAFKA.bootstrap())
                            .setTopics(table.topic())
                            .setGroupId("recovery-it")
                            .setStartingOffsets(OffsetsInitializer.earliest())
                            .setBounded(
                                    OffsetsInitializer.offsets(
                                            Map.of(
                                                    new TopicPartition(table.topic(), 0),
                                                    (long) records)))
                            .setDeserializer(
                                    new FailOnce(
                                            new ParsingDeserializer(EventStreams.parseSpec(table))))
                            .build();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(300);
            FeaturesJob.defineView(
                    env,
                    view,
                    table,
                    source,
                    new OnlineSink(config.online(), view.name(), 50),
                    config.online().store() == io.sluice.config.OnlineStoreType.SQLITE,
                    config.tablePath("features", view.name()).toString());
            job = env.executeAsync("features-recovery-it");
        }

        void send(List<GeneratedRecord> records) {
            Topics.send(
                    KAFKA.bootstrap(),
                    records.stream()
                            .map(r -> new ProducerRecord<>(table.topic(), r.key(), r.value()))
                            .toList());
        }

        /** Whether the fine tile of some event among {@code records} is in the store. */
        boolean hasTiles(List<GeneratedRecord> records) {
            FeatureViewConfig view = config.featureViews().get(0);
            long tile = view.tile().toMillis();
            List<OnlineStore.TileKey> keys = new ArrayList<>();
            Expected.events(view, table, records)
                    .forEach(
                            (entity, events) ->
                                    events.forEach(
                                            e ->
                                                    keys.add(
                                                            new OnlineStore.TileKey(
                                                                    view.name(),
                                                                    entity,
                                                                    OnlineStore.Level.FINE,
                                                                    Math.floorDiv(e.ts(), tile)
                                                                            * tile))));
            try (OnlineStore store = OnlineStores.open(config.online())) {
                return !store.readTiles(keys, System.currentTimeMillis()).isEmpty();
            } catch (IOException storeNotReady) {
                return false;
            }
        }

        void finish() throws Exception {
            job.getJobExecutionResult().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            job.cancel();
        }
    }
}
