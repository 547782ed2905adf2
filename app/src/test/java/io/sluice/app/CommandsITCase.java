package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.GeneratorStats;
import io.sluice.generate.LandingHours;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.DuckDb;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.Topics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The deployed-style commands, {@code generate} then {@code ingest}, against a real broker. */
class CommandsITCase {

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    @TempDir Path dir;

    @Test
    void shouldLandWhatGenerateProducedWhenIngestRunsBounded() throws Exception {
        SluiceConfig config = ReferenceConfig.writeInto(dir, KAFKA.bootstrap());
        for (TableConfig t : config.tables()) {
            KAFKA.broker().createTopics(2, t.topic(), DeadLetterSerializer.topicFor(t.topic()));
        }
        String configFile = dir.resolve("sluice.yaml").toString();
        // Six hours of events, all in the past: later than now + max_future would be dead-lettered.
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(7, ChronoUnit.HOURS);

        assertThat(
                        Main.run(
                                "generate",
                                "--config",
                                configFile,
                                "--events",
                                "3000",
                                "--seed",
                                "3",
                                "--start",
                                start.toString()))
                .isZero();
        assertThat(Main.run("ingest", "--config", configFile, "--bounded")).isZero();

        GeneratorStats expected =
                new Generator(config.tables(), GeneratorOptions.defaults(3000, 3).withStart(start))
                        .run(r -> {});
        for (TableConfig t : config.tables()) {
            assertThat(Landing.rows(Path.of(config.tablePath("raw", t.name()))))
                    .as(t.name())
                    .hasSize(expected.validByTable().getOrDefault(t.name(), 0L).intValue());
        }
        long deadLetters = 0;
        for (TableConfig t : config.tables()) {
            deadLetters +=
                    Topics.readAll(KAFKA.bootstrap(), DeadLetterSerializer.topicFor(t.topic()))
                            .size();
        }
        assertThat(deadLetters).isEqualTo(expected.invalid());
        assertThat(dir.resolve("_flink/ingest")).as("checkpoints on the file system").isDirectory();
    }

    @Test
    void shouldReportLandedHoursWithoutAManifestAndFailOnThemWhenStrict() throws Exception {
        SluiceConfig config = ReferenceConfig.writeInto(dir, KAFKA.bootstrap());
        String configFile = dir.resolve("sluice.yaml").toString();
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(7, ChronoUnit.HOURS);
        TableConfig purchases = config.table("purchases").orElseThrow();
        LandingHours.write(
                dir, purchases, GeneratorOptions.defaults(300, 5).withStart(start), 1, false);
        // A killed ingest job committed this hour's files and never wrote its manifest.
        Path raw = Path.of(config.tablePath("raw", "purchases"));
        Path orphaned;
        try (var hours = java.nio.file.Files.list(raw)) {
            Path day = hours.sorted().findFirst().orElseThrow();
            try (var hrs = java.nio.file.Files.list(day)) {
                orphaned = hrs.sorted().findFirst().orElseThrow();
            }
        }
        java.nio.file.Files.delete(orphaned.resolve("_SUCCESS"));
        String partition = raw.relativize(orphaned).toString();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        int lenient;
        int strict;
        try {
            lenient = Main.run("compact", "--config", configFile);
            strict = Main.run("compact", "--config", configFile, "--strict");
        } finally {
            System.setOut(stdout);
        }
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("purchases " + partition + ": NOT COMPLETE", "no _SUCCESS");
        assertThat(lenient).isZero();
        assertThat(strict).isEqualTo(1);
    }

    @Test
    void shouldRefuseToCountAgainOverTilesOfACheckpointedRunWithoutState() throws Exception {
        SluiceConfig cfg = ReferenceConfig.writeInto(dir, KAFKA.bootstrap());
        String config = dir.resolve("sluice.yaml").toString();
        try (var store = io.sluice.features.online.OnlineStores.open(cfg.online())) {
            store.write(
                    java.util.List.of(
                            new io.sluice.features.online.OnlineStore.TileWrite(
                                    new io.sluice.features.online.OnlineStore.TileKey(
                                            "user_purchases",
                                            "u1",
                                            io.sluice.features.online.OnlineStore.Level.FINE,
                                            0),
                                    3,
                                    new byte[] {1},
                                    Long.MAX_VALUE)));
        }
        // The run that wrote the tile checkpointed: its consumer group committed an offset.
        String topic = cfg.table("purchases").orElseThrow().topic();
        KAFKA.broker().createTopics(1, topic);
        java.util.Properties props = new java.util.Properties();
        props.put("bootstrap.servers", KAFKA.bootstrap());
        props.put("group.id", "sluice-features-user_purchases");
        try (var consumer =
                new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
                        props,
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.commitSync(
                    java.util.Map.of(
                            new org.apache.kafka.common.TopicPartition(topic, 0),
                            new org.apache.kafka.clients.consumer.OffsetAndMetadata(0)));
        }

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int fresh;
        int rebuildFromSavepoint;
        try {
            fresh = Main.run("features", "--config", config, "--fresh");
            rebuildFromSavepoint =
                    Main.run("features", "--config", config, "--rebuild", "--from-savepoint", "/x");
        } finally {
            System.setErr(stderr);
        }
        assertThat(fresh).isEqualTo(2);
        assertThat(rebuildFromSavepoint).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains(
                        "the online store holds tiles of user_purchases",
                        "--from-savepoint PATH",
                        "--rebuild",
                        "--rebuild and --from-savepoint exclude each other");
    }

    @Test
    void shouldBackfillTheFeatureLogOfTheCompactedHours() throws Exception {
        SluiceConfig config = ReferenceConfig.writeInto(dir, KAFKA.bootstrap());
        String configFile = dir.resolve("sluice.yaml").toString();
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(7, ChronoUnit.HOURS);
        for (TableConfig t : config.tables()) {
            LandingHours.write(
                    dir, t, GeneratorOptions.defaults(1_500, 9).withStart(start), 2, false);
        }
        String from = start.minus(2, ChronoUnit.HOURS).toString();
        String to = start.plus(6, ChronoUnit.HOURS).toString();
        assertThat(Main.run("compact", "--config", configFile, "--from", from, "--to", to))
                .isZero();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertThat(
                            Main.run(
                                    "features",
                                    "--config",
                                    configFile,
                                    "--backfill",
                                    "--from",
                                    from,
                                    "--to",
                                    to))
                    .isZero();
        } finally {
            System.setOut(stdout);
        }

        String summary = out.toString(StandardCharsets.UTF_8);
        long warehouseRows =
                WarehouseManifest.readAll(Path.of(config.tablePath("warehouse", "purchases")))
                        .stream()
                        .mapToLong(WarehouseManifest::rows)
                        .sum();
        try (DuckDb duck = new DuckDb()) {
            String log =
                    "read_parquet('"
                            + Path.of(config.tablePath("features", "user_purchases"))
                            + "/*/*/*.parquet')";
            long rows = duck.count("select count(*) from " + log);
            assertThat(duck.count("select sum(events) from " + log)).isEqualTo(warehouseRows);
            assertThat(summary)
                    .contains(String.format("user_purchases: %,d rows in ", rows))
                    .contains("backfill [" + from + ", " + to + "): 8 hours");
        }
    }
}
