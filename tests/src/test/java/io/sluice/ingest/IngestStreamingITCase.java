package io.sluice.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.StorageConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.event.EventStreams;
import io.sluice.event.Parsed;
import io.sluice.event.ParsingDeserializer;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.lake.AvroPayloadWriter;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFileSystem;
import io.sluice.testing.Await;
import io.sluice.testing.FailOnce;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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

/** The ingest job while it runs: hour completeness, late re-opening, and recovery from failure. */
class IngestStreamingITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    static final Duration TIMEOUT = Duration.ofMinutes(2);
    static final Instant H0 =
            Instant.now().truncatedTo(ChronoUnit.HOURS).minus(5, ChronoUnit.HOURS);

    @TempDir Path root;

    /** The page_views table on a one-partition topic, so the test controls the watermark. */
    private TableConfig pageViews(SluiceConfig config) {
        TableConfig views = config.table("page_views").orElseThrow();
        KAFKA.broker().createTopics(1, views.topic(), DeadLetterSerializer.topicFor(views.topic()));
        return views;
    }

    private SluiceConfig config() {
        return TestConfigs.shop(
                root, KAFKA.bootstrap(), "s" + UUID.randomUUID().toString().substring(0, 8));
    }

    private static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        return env;
    }

    private static LandingSink landing(SluiceConfig config, TableConfig table) {
        return new LandingSink(
                config.tablePath("raw", table.name()).toString(),
                table.name(),
                table.schema(),
                AvroPayloadWriter.CODEC,
                table.allowedLateness());
    }

    private static ProducerRecord<byte[], byte[]> view(TableConfig table, Instant time) {
        String json =
                "{\"event_id\":\""
                        + UUID.randomUUID()
                        + "\",\"event_time\":\""
                        + time
                        + "\",\"user_id\":\"u1\",\"session_id\":\"s1\",\"page\":\"/\","
                        + "\"device\":\"WEB\",\"country\":\"DE\"}";
        return new ProducerRecord<>(table.topic(), "u1".getBytes(), json.getBytes());
    }

    private static Path hour(Path tableDir, Instant t) {
        return tableDir.resolve(HourPartitioner.partition(t.toEpochMilli()));
    }

    private static List<String> manifestFiles(Path hourDir) throws IOException {
        List<String> names = new ArrayList<>();
        HourManifest.read(new org.apache.flink.core.fs.Path(hourDir.toUri()))
                .get("files")
                .forEach(f -> names.add(f.get("name").asText()));
        return names;
    }

    private static long manifestRows(Path hourDir) {
        try {
            return Files.exists(hourDir.resolve(HourManifest.NAME))
                    ? HourManifest.read(new org.apache.flink.core.fs.Path(hourDir.toUri()))
                            .get("rows")
                            .asLong()
                    : -1;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldPublishManifestsOnlyForCompleteHoursAndReopenThemForLateEvents() throws Exception {
        SluiceConfig config = config();
        TableConfig views = pageViews(config);
        Path dir = Path.of(config.tablePath("raw", views.name()));
        StreamExecutionEnvironment env = env();
        // One reader for the one partition: a reader without a split only counts as idle after
        // the table's idleness timeout, and would hold the watermark back until then.
        env.setParallelism(1);
        IngestJob.defineTable(
                env,
                views,
                EventStreams.source(config.kafka(), views, false),
                EventStreams.deadLetterSink(config.kafka(), views),
                landing(config, views));
        JobClient job = env.executeAsync("ingest-streaming-it");
        try {
            Instant h1 = H0.plus(1, ChronoUnit.HOURS);
            Instant h2 = H0.plus(2, ChronoUnit.HOURS);
            List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>();
            first.add(new ProducerRecord<>(views.topic(), "{not json".getBytes()));
            first.add(view(views, H0.plus(10, ChronoUnit.MINUTES)));
            first.add(view(views, H0.plus(50, ChronoUnit.MINUTES)));
            first.add(view(views, h1.plus(30, ChronoUnit.MINUTES)));
            // Watermark: h2+5m-30s, past H0's end + 15m lateness, short of h1's.
            first.add(view(views, h2.plus(5, ChronoUnit.MINUTES)));
            Topics.send(KAFKA.bootstrap(), first);
            Await.until("H0 manifest", TIMEOUT, () -> manifestRows(hour(dir, H0)) == 2);
            assertThat(hour(dir, h1).resolve(HourManifest.NAME)).doesNotExist();
            assertThat(hour(dir, h2).resolve(HourManifest.NAME)).doesNotExist();
            assertThat(Landing.rows(dir)).hasSize(4);
            // One part file, or two when a checkpoint fell between H0's two rows.
            List<String> onTime = manifestFiles(hour(dir, H0));

            Topics.send(KAFKA.bootstrap(), List.of(view(views, H0.plus(20, ChronoUnit.MINUTES))));
            Await.until("late row re-commits H0", TIMEOUT, () -> manifestRows(hour(dir, H0)) == 3);
            // The re-written manifest lists the hour's earlier files and the late row's one.
            assertThat(manifestFiles(hour(dir, H0))).containsAll(onTime).hasSize(onTime.size() + 1);

            Topics.send(KAFKA.bootstrap(), List.of(view(views, h2.plus(50, ChronoUnit.MINUTES))));
            Await.until("H1 manifest", TIMEOUT, () -> manifestRows(hour(dir, h1)) == 1);
            assertThat(hour(dir, h2).resolve(HourManifest.NAME)).doesNotExist();
            assertThat(
                            Topics.readAll(
                                    KAFKA.bootstrap(),
                                    DeadLetterSerializer.topicFor(views.topic())))
                    .hasSize(1);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldStayExactlyOnceWhenATaskFailsInTheMiddleOfTheStream() throws Exception {
        SluiceConfig config = config();
        exactlyOnceThroughATaskFailure(config, Path.of(config.tablePath("raw", "page_views")));
    }

    /**
     * The same on S3 (S3Proxy, objects as plain files), where the file sink's part files are
     * multipart uploads: the failure comes while some are open, and others are closed but wait for
     * their checkpoint's commit; the restart discards the first and completes the second.
     */
    @Test
    void shouldStayExactlyOnceOnS3WhenATaskFailsWithUploadsInFlight() throws Exception {
        StorageConfig lake = S3.newLake();
        LakeFileSystem.initialize(lake, S3.server().env());
        SluiceConfig config = TestConfigs.onStorage(config(), lake);
        exactlyOnceThroughATaskFailure(
                config,
                S3.server().objectFile(lake.rootUri().getPath().substring(1) + "/raw/page_views"));
    }

    /** Runs the ingest of page_views through one task failure; {@code dir} is where it lands. */
    private void exactlyOnceThroughATaskFailure(SluiceConfig config, Path dir) throws Exception {
        TableConfig views = pageViews(config);
        List<GeneratedRecord> events = new ArrayList<>();
        new Generator(
                        List.of(views),
                        GeneratorOptions.defaults(4_000, 5).withStart(H0).withRates(0.0, 0.05, 0.0))
                .run(events::add);
        long valid = events.stream().filter(e -> e.kind() == GeneratedRecord.Kind.VALID).count();
        List<GeneratedRecord> firstHalf = events.subList(0, 2_000);
        long firstValid =
                firstHalf.stream().filter(e -> e.kind() == GeneratedRecord.Kind.VALID).count();
        KafkaSource<Parsed> source =
                KafkaSource.<Parsed>builder()
                        .setBootstrapServers(KAFKA.bootstrap())
                        .setTopics(views.topic())
                        .setGroupId("failure-it")
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(
                                OffsetsInitializer.offsets(
                                        Map.of(
                                                new TopicPartition(views.topic(), 0),
                                                (long) events.size())))
                        .setDeserializer(
                                new FailOnce(
                                        new ParsingDeserializer(EventStreams.parseSpec(views))))
                        .build();
        StreamExecutionEnvironment env = env();
        IngestJob.defineTable(
                env,
                views,
                source,
                EventStreams.deadLetterSink(config.kafka(), views),
                landing(config, views));
        JobClient job = env.executeAsync("ingest-failure-it");

        send(views, firstHalf);
        Await.until("first half committed", TIMEOUT, () -> Landing.rows(dir).size() == firstValid);
        FailOnce.arm();
        send(views, events.subList(2_000, events.size()));
        job.getJobExecutionResult().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(FailOnce.fired()).as("the injected failure happened").isTrue();
        assertThat(Landing.rows(dir))
                .extracting(r -> r.record().get("event_id").toString())
                .containsExactlyInAnyOrderElementsOf(
                        events.stream()
                                .filter(e -> e.kind() == GeneratedRecord.Kind.VALID)
                                .map(GeneratedRecord::eventId)
                                .toList())
                .hasSize((int) valid);
        assertThat(Topics.readAll(KAFKA.bootstrap(), DeadLetterSerializer.topicFor(views.topic())))
                .hasSize(
                        (int)
                                events.stream()
                                        .filter(e -> e.kind() == GeneratedRecord.Kind.INVALID)
                                        .count());
    }

    private static void send(TableConfig table, List<GeneratedRecord> records) {
        Topics.send(
                KAFKA.bootstrap(),
                records.stream()
                        .map(r -> new ProducerRecord<>(table.topic(), r.key(), r.value()))
                        .toList());
    }
}
