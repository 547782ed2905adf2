package io.sluice.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.event.EventStreams;
import io.sluice.event.Reason;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.GeneratorStats;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.Topics;
import java.nio.charset.StandardCharsets;
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
        IngestJob.publishRemainingHours(config);
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

    /**
     * The tracker's two table-stopping records, and seeded random bytes, between valid records of a
     * JSON and an Avro table: every valid record lands, every bad one is a dead letter with its
     * reason, the ~1 MiB one truncated with its size and digest. No restarts are allowed, so a
     * record that fails the job fails the test instead of looping.
     */
    @Test
    void shouldLandValidRecordsAroundRecordsBuiltToStopATable() throws Exception {
        SluiceConfig config = config();
        TableConfig views = config.table("page_views").orElseThrow();
        TableConfig carts = config.table("add_to_cart").orElseThrow();
        Instant time = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(2, ChronoUnit.HOURS);
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        io.sluice.event.EventParser viewParser =
                new io.sluice.event.EventParser(
                        EventStreams.parseSpec(views), System::currentTimeMillis);
        io.sluice.event.EventParser cartParser =
                new io.sluice.event.EventParser(
                        EventStreams.parseSpec(carts), System::currentTimeMillis);
        // Just under the broker's default message.max.bytes (1 MiB + 12) with its framing, so it
        // reaches the topic; with the dead-letter headers it would exceed 1 MiB.
        byte[] big =
                ("{\"event_id\":\"big\",\"page\":\"" + "x".repeat((1 << 20) - 200) + "\"}")
                        .getBytes(StandardCharsets.UTF_8);
        byte[] twoGib = java.util.HexFormat.of().parseHex("c30186fcae8592bee764ecffffff0f616263");
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        List<String> validViews = new ArrayList<>();
        List<String> validCarts = new ArrayList<>();
        Map<String, String> badReasons = new HashMap<>(); // value digest -> expected reason
        int noiseRecords = 0; // two noise records may be equal (short Avro ones are a prefix)
        for (int i = 0; i < 60; i++) {
            String id = "v-" + i;
            validViews.add(id);
            records.add(new ProducerRecord<>(views.topic(), "u1".getBytes(), viewJson(id, time)));
            String cartId = "c-" + i;
            validCarts.add(cartId);
            records.add(
                    new ProducerRecord<>(
                            carts.topic(), "u1".getBytes(), cart(carts, cartId, time)));
            if (i == 20) {
                records.add(new ProducerRecord<>(views.topic(), "u1".getBytes(), big));
                records.add(new ProducerRecord<>(carts.topic(), "u1".getBytes(), twoGib));
            }
            if (i % 3 == 0) {
                byte[] noise = new byte[random.nextInt(1, 200)];
                for (int b = 0; b < noise.length; b++) {
                    noise[b] = (byte) random.nextInt(256);
                }
                boolean avro = random.nextBoolean();
                if (avro) {
                    System.arraycopy(twoGib, 0, noise, 0, Math.min(10, noise.length));
                }
                var parsed = (avro ? cartParser : viewParser).parse("t", 0, 0, 0, null, noise);
                assertThat(parsed.isValid()).as("seed %d: noise is invalid", seed).isFalse();
                badReasons.put(digest(noise), parsed.deadLetter.reason);
                noiseRecords++;
                records.add(new ProducerRecord<>(avro ? carts.topic() : views.topic(), noise));
            }
        }
        Topics.send(
                KAFKA.bootstrap(),
                records,
                Map.of(
                        org.apache.kafka.clients.producer.ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                        2 << 20));

        org.apache.flink.configuration.Configuration noRestarts =
                new org.apache.flink.configuration.Configuration();
        noRestarts.set(
                org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(noRestarts);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        IngestJob.define(env, config, true);
        env.executeAsync("ingest-hostile-it")
                .getJobExecutionResult()
                .get(3, java.util.concurrent.TimeUnit.MINUTES);

        assertThat(Landing.rows(Path.of(config.tablePath("raw", views.name()))))
                .extracting(r -> r.record().get("event_id").toString())
                .containsExactlyInAnyOrderElementsOf(validViews);
        assertThat(Landing.rows(Path.of(config.tablePath("raw", carts.name()))))
                .extracting(r -> r.record().get("event_id").toString())
                .containsExactlyInAnyOrderElementsOf(validCarts);

        List<ConsumerRecord<byte[], byte[]>> dead = new ArrayList<>();
        dead.addAll(
                Topics.readAll(KAFKA.bootstrap(), DeadLetterSerializer.topicFor(views.topic())));
        dead.addAll(
                Topics.readAll(KAFKA.bootstrap(), DeadLetterSerializer.topicFor(carts.topic())));
        assertThat(dead).as("seed %d", seed).hasSize(noiseRecords + 2);
        int truncated = 0;
        for (ConsumerRecord<byte[], byte[]> d : dead) {
            String reason = Topics.header(d, DeadLetterSerializer.REASON);
            assertThat(Topics.header(d, DeadLetterSerializer.ERROR)).isNotBlank();
            if (Topics.header(d, DeadLetterSerializer.TRUNCATED) != null) {
                truncated++;
                assertThat(reason).isEqualTo("OVERSIZE");
                assertThat(d.topic()).isEqualTo(DeadLetterSerializer.topicFor(views.topic()));
                assertThat(Topics.header(d, DeadLetterSerializer.ORIGINAL_BYTES))
                        .isEqualTo(Integer.toString(big.length));
                assertThat(Topics.header(d, DeadLetterSerializer.ORIGINAL_SHA256))
                        .isEqualTo(digest(big));
                assertThat(d.value()).isEqualTo(java.util.Arrays.copyOf(big, d.value().length));
                assertThat(d.value().length).isLessThan(big.length).isGreaterThan(800 * 1024);
            } else if (java.util.Arrays.equals(d.value(), twoGib)) {
                assertThat(reason).isEqualTo("MALFORMED");
                assertThat(Topics.header(d, DeadLetterSerializer.ERROR)).contains("string length");
            } else {
                assertThat(reason)
                        .as("seed %d: reason of a noise record", seed)
                        .isEqualTo(badReasons.get(digest(d.value())));
            }
        }
        assertThat(truncated).isEqualTo(1);
    }

    private static byte[] viewJson(String id, Instant time) {
        return ("{\"event_id\":\""
                        + id
                        + "\",\"event_time\":\""
                        + time
                        + "\",\"user_id\":\"u1\",\"session_id\":\"s1\",\"page\":\"/\","
                        + "\"device\":\"WEB\",\"country\":\"DE\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] cart(TableConfig table, String id, Instant time) throws Exception {
        org.apache.avro.Schema schema = table.schema();
        org.apache.avro.generic.GenericRecord r =
                new org.apache.avro.generic.GenericData.Record(schema);
        r.put("event_id", id);
        r.put("event_time", time.toEpochMilli());
        r.put("user_id", "u1");
        r.put("session_id", "s1");
        r.put("item_id", "i1");
        r.put("category", "books");
        r.put("price", 1.5f);
        r.put("quantity", 1);
        r.put(
                "device",
                new org.apache.avro.generic.GenericData.EnumSymbol(
                        schema.getField("device").schema(), "WEB"));
        r.put("country", "DE");
        return new org.apache.avro.message.BinaryMessageEncoder<
                        org.apache.avro.generic.GenericRecord>(
                        org.apache.avro.generic.GenericData.get(), schema)
                .encode(r)
                .array();
    }

    private static String digest(byte[] bytes) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
