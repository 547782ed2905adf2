package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compact.HourCompactor;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.event.DuplicateRule;
import io.sluice.event.Event;
import io.sluice.event.EventParser;
import io.sluice.event.EventStreams;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.SameValue;
import io.sluice.ingest.IngestJob;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import io.sluice.testing.Await;
import io.sluice.testing.DuckDb;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One id sent twice with different payloads on two partitions, in both orders: the ingest job,
 * compaction and the features job, running against a real broker, keep the same copy, {@link
 * DuplicateRule}'s winner. For half the ids the winner is consumed first, for the other half
 * second: the first copies are sent, the running jobs are awaited until they have taken them, and
 * only then the second copies follow.
 */
class DuplicateCopiesITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final int IDS = 24;

    @TempDir Path root;

    /** One id's two copies: A on partition 0, B on partition 1. */
    private record Pair(Event a, Event b, byte[] jsonA, byte[] jsonB, boolean aFirst) {
        Event winner() {
            return DuplicateRule.compare(a, b) < 0 ? a : b;
        }

        boolean winnerFirst() {
            return winner() == (aFirst ? a : b);
        }

        ProducerRecord<byte[], byte[]> first(String topic) {
            return aFirst ? record(topic, 0, a, jsonA) : record(topic, 1, b, jsonB);
        }

        ProducerRecord<byte[], byte[]> second(String topic) {
            return aFirst ? record(topic, 1, b, jsonB) : record(topic, 0, a, jsonA);
        }
    }

    @Test
    void lakeAndOnlineStoreKeepTheSameWinnerInBothArrivalOrders() throws Exception {
        SluiceConfig config =
                TestConfigs.shop(
                        root,
                        KAFKA.bootstrap(),
                        "d" + UUID.randomUUID().toString().substring(0, 8));
        TableConfig table = config.table("purchases").orElseThrow();
        FeatureViewConfig viewConfig =
                config.featureViews().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow();
        ViewDef view = ViewDef.of(viewConfig, table);
        KAFKA.broker().createTopics(2, table.topic(), DeadLetterSerializer.topicFor(table.topic()));
        EventParser parser =
                new EventParser(EventStreams.parseSpec(table), System::currentTimeMillis);

        Instant hour = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(5, ChronoUnit.HOURS);
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i < IDS; i++) {
            String id = "dup-" + i;
            String user = "dup-user-" + (i % 6);
            Instant ta = hour.plus(10, ChronoUnit.MINUTES).plusSeconds(7L * i);
            // A third tie on time (the payload digest decides), the rest differ by up to 20
            // minutes either way: A or B wins, within the hour, in another fine or coarse tile.
            Instant tb = i % 3 == 0 ? ta : ta.plus(i % 2 == 0 ? 20 : -5, ChronoUnit.MINUTES);
            byte[] a = json(id, ta, user, 10 + i, "card");
            byte[] b = json(id, tb, user, 100 + i, "paypal");
            pairs.add(new Pair(parser.toEvent(a), parser.toEvent(b), a, b, (i / 2) % 2 == 0));
        }
        long winnersFirst = pairs.stream().filter(Pair::winnerFirst).count();
        assertThat(winnersFirst).as("ids whose winner is consumed first").isBetween(4L, IDS - 4L);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        IngestJob.defineTable(env, config, table, false);
        FeaturesJob.defineView(
                env,
                viewConfig,
                table,
                EventStreams.source(config.kafka(), table, false, "features-" + view.name()),
                new OnlineSink(
                        config.online(), viewConfig.name(), FeaturesJob.FLUSH_INTERVAL_MILLIS),
                true,
                null);
        JobClient job = env.executeAsync("duplicate-copies-it");
        Path raw = Path.of(config.tablePath("raw", table.name()));
        String partition = HourPartitioner.partition(hour.toEpochMilli());
        try {
            List<Event> firsts = new ArrayList<>();
            Topics.send(
                    KAFKA.bootstrap(),
                    pairs.stream()
                            .map(
                                    p -> {
                                        firsts.add(p.aFirst() ? p.a() : p.b());
                                        return p.first(table.topic());
                                    })
                            .toList());
            // Both jobs have taken every first copy before any second copy is sent.
            Await.until("the first copies landed", TIMEOUT, () -> Landing.rows(raw).size() == IDS);
            Await.until(
                    "the first copies online",
                    TIMEOUT,
                    () -> onlineEquals(config, view, firsts, false));

            Topics.send(
                    KAFKA.bootstrap(), pairs.stream().map(p -> p.second(table.topic())).toList());
            List<Event> winners = pairs.stream().map(Pair::winner).toList();
            // The lake takes a second copy only when it wins; compaction keeps the winner.
            long landed = IDS + (IDS - winnersFirst);
            Await.until(
                    "the winning second copies landed",
                    TIMEOUT,
                    () -> Landing.rows(raw).size() == landed);
            Await.until(
                    "the winners online",
                    TIMEOUT,
                    () -> onlineEquals(config, view, winners, false));
            onlineEquals(config, view, winners, true); // asserts, naming any difference

            // Move the watermark past the hour's end and lateness on both partitions.
            Instant later = hour.plus(3, ChronoUnit.HOURS);
            Topics.send(
                    KAFKA.bootstrap(),
                    List.of(
                            new ProducerRecord<>(
                                    table.topic(),
                                    0,
                                    null,
                                    json("clock-0", later, "clock-user", 1, "card")),
                            new ProducerRecord<>(
                                    table.topic(),
                                    1,
                                    null,
                                    json("clock-1", later, "clock-user", 1, "card"))));
            Path hourDir = raw.resolve(partition);
            Await.until(
                    "the hour's landing manifest",
                    TIMEOUT,
                    () -> Files.exists(hourDir.resolve(HourManifest.NAME)));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }

        HourCompactor compactor = new HourCompactor(table, root);
        assertThat(compactor.compact(partition, false).outcome())
                .isEqualTo(HourCompactor.Outcome.COMPACTED);
        Set<String> expected = new TreeSet<>();
        for (Pair p : pairs) {
            Event w = p.winner();
            expected.add(w.id + "/" + w.key + "/" + w.eventTime + "/" + price(table, w));
        }
        Set<String> warehouse = new TreeSet<>();
        try (DuckDb duck = new DuckDb()) {
            for (Map<String, Object> r :
                    duck.rows(
                            "select event_id, user_id, epoch_ms(event_time) as t, price from"
                                    + " read_parquet('"
                                    + Path.of(compactor.warehouseHour(partition))
                                    + "/*.parquet')")) {
                warehouse.add(
                        r.get("event_id")
                                + "/"
                                + r.get("user_id")
                                + "/"
                                + r.get("t")
                                + "/"
                                + r.get("price"));
            }
        }
        assertThat(warehouse).isEqualTo(expected);
    }

    /**
     * Whether every feature of the ids' users, read from the SQLite store at several times after
     * the copies (and at their own times), equals the definition over {@code accepted}.
     *
     * @param strict assert instead of returning false
     */
    private static boolean onlineEquals(
            SluiceConfig config, ViewDef view, List<Event> accepted, boolean strict) {
        Map<String, List<EventEntry>> byUser = new LinkedHashMap<>();
        GenericDatumReader<GenericRecord> reader =
                new GenericDatumReader<>(config.table("purchases").orElseThrow().schema());
        try {
            for (Event e : accepted) {
                GenericRecord record =
                        reader.read(null, DecoderFactory.get().binaryDecoder(e.payload, null));
                byUser.computeIfAbsent(e.key, k -> new ArrayList<>())
                        .add(view.entry(record, e.id, e.eventTime));
            }
            long now = System.currentTimeMillis();
            Set<Long> times = new HashSet<>();
            times.add(now);
            for (Event e : accepted) {
                times.add(e.eventTime);
                times.add(e.eventTime + 1);
            }
            List<FeatureReader.FeatureRef> refs = new ArrayList<>();
            view.features()
                    .forEach(f -> refs.add(new FeatureReader.FeatureRef(view.name(), f.name())));
            List<String> users = new ArrayList<>(byUser.keySet());
            try (OnlineStore store = OnlineStores.open(config.online())) {
                FeatureReader features = new FeatureReader(store, List.of(view), () -> now);
                for (long at : times) {
                    for (FeatureReader.Vector v : features.read(refs, users, at)) {
                        for (int i = 0; i < view.features().size(); i++) {
                            FeatureDef f = view.features().get(i);
                            FeatureValue want =
                                    Definition.value(view, f, at, byUser.get(v.entity()));
                            SameValue.assertSame(
                                    f.name() + " of " + v.entity() + " at " + at,
                                    want,
                                    v.values().get(i));
                        }
                    }
                }
            }
            return true;
        } catch (AssertionError | Exception e) {
            if (strict) {
                throw new AssertionError(e);
            }
            return false;
        }
    }

    private static Object price(TableConfig table, Event e) throws Exception {
        GenericRecord r =
                new GenericDatumReader<GenericRecord>(table.schema())
                        .read(null, DecoderFactory.get().binaryDecoder(e.payload, null));
        return r.get("price");
    }

    private static ProducerRecord<byte[], byte[]> record(
            String topic, int partition, Event e, byte[] json) {
        return new ProducerRecord<>(topic, partition, e.key.getBytes(StandardCharsets.UTF_8), json);
    }

    private static byte[] json(String id, Instant time, String user, int price, String payment) {
        return ("{\"event_id\":\""
                        + id
                        + "\",\"event_time\":\""
                        + time
                        + "\",\"user_id\":\""
                        + user
                        + "\",\"session_id\":\"s\",\"order_id\":\"o-"
                        + id
                        + "\",\"item_id\":\"i\",\"category\":\"c-"
                        + price
                        + "\",\"price\":"
                        + price
                        + ".5,\"quantity\":1,\"payment_method\":\""
                        + payment
                        + "\",\"coupon\":null,\"device\":\"IOS\",\"country\":\"FR\"}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
