package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.StorageConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.OnlineCheck;
import io.sluice.features.testing.StreamingRun;
import io.sluice.generate.GeneratedRecord;
import io.sluice.lake.LakeFileSystem;
import io.sluice.redis.LocalRedis;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.test.junit5.MiniClusterExtension;
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

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

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
        List<GeneratedRecord> generated = run(config);
        assertThat(OnlineCheck.exact(config, generated)).isGreaterThan(1_000);
        OnlineCheck.markedNearTheEnd(config, generated);
        checkFeatureLog(config, generated, view -> Path.of(config.tablePath("features", view)));
    }

    /**
     * The same with the lake on S3 (S3Proxy, objects as plain files): the feature log's file sink
     * writes multipart uploads there, and its files, read from the server's directory, hold the
     * same rows.
     */
    @Test
    void featureLogOnS3HoldsExactlyTheDefinedValues() throws Exception {
        StorageConfig lake = S3.newLake();
        LakeFileSystem.initialize(lake, S3.server().env());
        SluiceConfig config = TestConfigs.onStorage(config(null), lake);
        List<GeneratedRecord> generated = run(config);
        assertThat(OnlineCheck.exact(config, generated)).isGreaterThan(1_000);
        checkFeatureLog(
                config,
                generated,
                view ->
                        S3.server()
                                .objectFile(
                                        lake.rootUri().getPath().substring(1)
                                                + "/features/"
                                                + view));
    }

    /**
     * The feature log, read by DuckDB: the newest row of every (entity, tile) counts exactly the
     * tile's accepted events, and sums their values.
     */
    private static void checkFeatureLog(
            SluiceConfig config,
            List<GeneratedRecord> generated,
            java.util.function.Function<String, Path> logDir) {
        FeatureViewConfig view =
                config.featureViews().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow();
        TableConfig table = config.table(view.source()).orElseThrow();
        long tile = view.tile().toMillis();
        Map<String, double[]> expected =
                new java.util.TreeMap<>(); // entity/tile -> {events, spend}
        Expected.events(view, table, generated)
                .forEach(
                        (entity, events) -> {
                            for (EventEntry e : events) {
                                double[] acc =
                                        expected.computeIfAbsent(
                                                entity + "/" + Math.floorDiv(e.ts(), tile) * tile,
                                                k -> new double[2]);
                                acc[0]++;
                                acc[1] += (Double) e.values()[0];
                            }
                        });
        Map<String, double[]> logged = new java.util.TreeMap<>();
        try (DuckDb duck = new DuckDb()) {
            for (Map<String, Object> r :
                    duck.rows(
                            "select entity, epoch_ms(tile_start) as t,"
                                    + " arg_max(events, version) as events,"
                                    + " arg_max(spend_24h, version) as spend from read_parquet('"
                                    + logDir.apply(view.name())
                                    + "/*/*/*.parquet', hive_partitioning = true)"
                                    + " group by all")) {
                logged.put(
                        r.get("entity") + "/" + r.get("t"),
                        new double[] {
                            ((Number) r.get("events")).doubleValue(),
                            ((Number) r.get("spend")).doubleValue()
                        });
            }
        }
        assertThat(logged.keySet()).isEqualTo(expected.keySet());
        assertLastOfAnEnumIsText(logDir.apply("user_activity"));
        expected.forEach(
                (k, want) -> {
                    assertThat(logged.get(k)[0]).as("events of %s", k).isEqualTo(want[0]);
                    assertThat(logged.get(k)[1])
                            .as("spend of %s", k)
                            .isCloseTo(want[1], within(Math.abs(want[1]) * 1e-6));
                });
    }

    /**
     * {@code last_device}, the last value of an Avro enum, is a UTF8 string in the feature log, so
     * text comparisons match it in every reader.
     */
    private static void assertLastOfAnEnumIsText(Path log) {
        String glob = log + "/*/*/*.parquet";
        try (DuckDb duck = new DuckDb()) {
            assertThat(
                            duck.rows(
                                    "select distinct logical_type from parquet_schema('"
                                            + glob
                                            + "') where name = 'last_device'"))
                    .extracting(r -> String.valueOf(r.get("logical_type")))
                    .containsExactly("StringType()");
            assertThat(
                            duck.count(
                                    "select count(*) from read_parquet('"
                                            + glob
                                            + "') where last_device = 'WEB'"))
                    .isPositive();
        }
    }

    @Test
    void redisHoldsExactlyTheDefinedValues() throws Exception {
        SluiceConfig config = config(redis.uri());
        List<GeneratedRecord> generated = run(config);
        assertThat(OnlineCheck.exact(config, generated)).isGreaterThan(1_000);
        OnlineCheck.markedNearTheEnd(config, generated);
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
                new OnlineConfig(io.sluice.config.OnlineStoreType.REDIS, redisUri),
                shop.checkpoint(),
                shop.tables(),
                shop.featureViews());
    }

    private List<GeneratedRecord> run(SluiceConfig config) throws Exception {
        List<GeneratedRecord> generated = Expected.stream(config, 4_000, 23);
        StreamingRun.features(config, generated, KAFKA);
        return generated;
    }
}
