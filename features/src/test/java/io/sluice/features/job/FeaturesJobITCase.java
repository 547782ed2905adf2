package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.features.online.RedisProcessHolder;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.Expected;
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
import java.util.Map;
import java.util.SplittableRandom;
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

    private static RedisProcessHolder redis;

    @TempDir Path root;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisProcessHolder.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    @Test
    void sqliteHoldsExactlyTheDefinedValues() throws Exception {
        SluiceConfig config = config(null);
        check(config, run(config));
    }

    @Test
    void redisHoldsExactlyTheDefinedValues() throws Exception {
        SluiceConfig config = config(redis.uri());
        check(config, run(config));
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

    private static void check(SluiceConfig config, List<GeneratedRecord> generated)
            throws Exception {
        long now = System.currentTimeMillis();
        SplittableRandom random = new SplittableRandom(7);
        long compared = 0;
        try (OnlineStore store = OnlineStores.open(config.online())) {
            for (FeatureViewConfig viewConfig : config.featureViews()) {
                TableConfig table = config.table(viewConfig.source()).orElseThrow();
                ViewDef view = ViewDef.of(viewConfig, table);
                FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
                Map<String, List<EventEntry>> expected =
                        Expected.events(viewConfig, table, generated);
                List<String> entities = new ArrayList<>(expected.keySet());
                List<String> sample = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    sample.add(entities.get(random.nextInt(entities.size())));
                }
                sample.add("user-that-never-came");
                List<FeatureReader.FeatureRef> refs = new ArrayList<>();
                view.features()
                        .forEach(
                                f -> refs.add(new FeatureReader.FeatureRef(view.name(), f.name())));
                for (int q = 0; q < 12; q++) {
                    long at = now - random.nextLong(6 * 3_600_000L);
                    if (q % 3 == 0) {
                        // On an event's own time: it must not count itself.
                        List<EventEntry> some = expected.get(sample.get(q));
                        at = some.get(random.nextInt(some.size())).ts();
                    }
                    List<FeatureReader.Vector> vectors = reader.read(refs, sample, at);
                    for (FeatureReader.Vector v : vectors) {
                        List<EventEntry> events = expected.getOrDefault(v.entity(), List.of());
                        for (int i = 0; i < view.features().size(); i++) {
                            FeatureDef f = view.features().get(i);
                            FeatureValue want = Definition.value(f, view.tileMillis(), at, events);
                            FeatureValue got = v.values().get(i);
                            String what =
                                    view.name()
                                            + ":"
                                            + f.name()
                                            + " of "
                                            + v.entity()
                                            + " at "
                                            + at;
                            assertThat(got.status()).as(what).isEqualTo(want.status());
                            assertThat(got.eventTime()).as(what).isEqualTo(want.eventTime());
                            if (want.value() instanceof Double d) {
                                assertThat((Double) got.value())
                                        .as(what)
                                        .isCloseTo(d, within(Math.abs(d) * 1e-9));
                            } else if (want.value() instanceof Float fl) {
                                assertThat((Float) got.value())
                                        .as(what)
                                        .isCloseTo(fl, within(Math.abs(fl) * 1e-6f));
                            } else {
                                assertThat(got.value()).as(what).isEqualTo(want.value());
                            }
                            compared++;
                        }
                    }
                }
            }
        }
        assertThat(compared).isGreaterThan(1_000);
    }
}
