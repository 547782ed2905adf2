package io.sluice.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.Reason;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.GeneratorStats;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The ingest job on a MiniCluster against a real in-process broker, run to the end of input. */
class IngestITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    @TempDir Path root;

    private SluiceConfig config() {
        String prefix = "t" + UUID.randomUUID().toString().substring(0, 8);
        SluiceConfig config = TestConfigs.shop(root, KAFKA.bootstrap(), prefix);
        for (TableConfig t : config.tables()) {
            KAFKA.broker().createTopics(2, t.topic());
            KAFKA.broker().createTopics(1, DeadLetterSerializer.topicFor(t.topic()));
        }
        return config;
    }

    private static void runBounded(SluiceConfig config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        IngestJob.define(env, config, true);
        env.execute("ingest-it");
    }

    @Test
    void shouldLandEveryValidEventExactlyOnceAndDeadLetterEveryBadKind() throws Exception {
        SluiceConfig config = config();
        GeneratorOptions options =
                GeneratorOptions.defaults(6_000, 11)
                        .withStart(
                                Instant.now()
                                        .truncatedTo(ChronoUnit.HOURS)
                                        .minus(5, ChronoUnit.HOURS))
                        .withRates(0.05, 0.08, 0.01);
        List<GeneratedRecord> generated = new ArrayList<>();
        GeneratorStats stats = new Generator(config.tables(), options).run(generated::add);
        Topics.send(
                KAFKA.bootstrap(),
                generated.stream()
                        .map(r -> new ProducerRecord<>(r.topic(), r.key(), r.value()))
                        .toList());

        runBounded(config);

        for (TableConfig table : config.tables()) {
            Path dir = Path.of(config.tablePath("raw", table.name()));
            List<Landing.Row> rows = Landing.rows(dir);
            List<String> expectedIds =
                    generated.stream()
                            .filter(r -> r.table().equals(table.name()))
                            .filter(r -> r.kind() == GeneratedRecord.Kind.VALID)
                            .map(GeneratedRecord::eventId)
                            .toList();
            assertThat(rows)
                    .extracting(r -> r.record().get("event_id").toString())
                    .as("each valid %s event exactly once", table.name())
                    .containsExactlyInAnyOrderElementsOf(expectedIds);
            for (Landing.Row row : rows) {
                long t = (Long) row.record().get("event_time");
                assertThat(HourPartitioner.partition(t)).isEqualTo(row.partition());
            }
            Map<String, Long> rowsByHour =
                    rows.stream()
                            .collect(
                                    Collectors.groupingBy(
                                            Landing.Row::partition, Collectors.counting()));
            for (var hour : rowsByHour.entrySet()) {
                var manifest =
                        HourManifest.read(
                                new org.apache.flink.core.fs.Path(
                                        dir.resolve(hour.getKey()).toUri()));
                assertThat(manifest.get("rows").asLong())
                        .as("manifest of %s", hour.getKey())
                        .isEqualTo(hour.getValue());
            }
        }
        Map<Reason, Long> deadByReason = new HashMap<>();
        for (TableConfig table : config.tables()) {
            for (ConsumerRecord<byte[], byte[]> dead :
                    Topics.readAll(
                            KAFKA.bootstrap(), DeadLetterSerializer.topicFor(table.topic()))) {
                deadByReason.merge(
                        Reason.valueOf(Topics.header(dead, DeadLetterSerializer.REASON)),
                        1L,
                        Long::sum);
                assertThat(Topics.header(dead, DeadLetterSerializer.SOURCE_TOPIC))
                        .isEqualTo(table.topic());
                assertThat(Topics.header(dead, DeadLetterSerializer.SOURCE_PARTITION))
                        .isIn("0", "1");
                assertThat(Topics.header(dead, DeadLetterSerializer.SOURCE_OFFSET)).matches("\\d+");
                assertThat(Topics.header(dead, DeadLetterSerializer.ERROR)).isNotBlank();
                assertThat(generated)
                        .as("dead letter keeps the original bytes")
                        .anyMatch(
                                g ->
                                        g.kind() == GeneratedRecord.Kind.INVALID
                                                && java.util.Arrays.equals(
                                                        g.value(), dead.value()));
            }
        }
        assertThat(deadByReason).isEqualTo(stats.invalidByReason());
        assertThat(stats.invalidByReason().keySet())
                .as("the generator covers every bad-input kind")
                .containsExactlyInAnyOrder(Reason.values());
    }

    @Test
    void shouldKeepHostileKeysAndIdsFromChangingWhereDataIsWritten() throws Exception {
        SluiceConfig config = config();
        TableConfig views = config.table("page_views").orElseThrow();
        String time =
                Instant.now().truncatedTo(ChronoUnit.HOURS).minus(2, ChronoUnit.HOURS).toString();
        List<String> hostile =
                List.of(
                        "../../../../tmp/escape",
                        "/etc/passwd",
                        "a/b/c",
                        "nul\u0000byte",
                        "x".repeat(5_000),
                        "dt=1999-01-01/hr=00",
                        "..");
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < hostile.size(); i++) {
            String h = hostile.get(i).replace("\u0000", "\\u0000");
            String json =
                    "{\"event_id\":\""
                            + h
                            + "-"
                            + i
                            + "\",\"event_time\":\""
                            + time
                            + "\",\"user_id\":\""
                            + h
                            + "\",\"session_id\":\""
                            + h
                            + "\",\"page\":\""
                            + h
                            + "\",\"device\":\"WEB\",\"country\":\"DE\"}";
            records.add(
                    new ProducerRecord<>(
                            views.topic(), hostile.get(i).getBytes(), json.getBytes()));
        }
        Topics.send(KAFKA.bootstrap(), records);

        runBounded(config);

        List<Landing.Row> rows = Landing.rows(Path.of(config.tablePath("raw", "page_views")));
        assertThat(rows)
                .extracting(r -> r.record().get("user_id").toString())
                .containsExactlyInAnyOrderElementsOf(hostile);
        try (Stream<Path> all = Files.walk(root)) {
            List<String> files =
                    all.filter(Files::isRegularFile)
                            .map(p -> root.relativize(p).toString())
                            .toList();
            assertThat(files)
                    .isNotEmpty()
                    .allMatch(
                            f ->
                                    f.matches(
                                            "raw/page_views/dt=\\d{4}-\\d{2}-\\d{2}/hr=\\d{2}/(part-[0-9a-f-]+-\\d+\\.avro|_SUCCESS)"),
                            "inside raw/page_views/dt=/hr=");
        }
        assertThat(Files.exists(Path.of("/tmp/escape"))).isFalse();
    }
}
