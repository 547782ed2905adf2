package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.GeneratorStats;
import io.sluice.ingest.DeadLetterSerializer;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.Topics;
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
}
