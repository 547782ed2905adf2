package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.lake.LandingScan;
import io.sluice.testing.Await;
import io.sluice.testing.Landing;
import io.sluice.testing.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the tests that run the streaming jobs against a broker share: a config that checkpoints
 * every second and completes hours soon, a producer that keeps writing while a test kills things,
 * the ticks that move the watermarks past every generated hour, and reads of what landed.
 */
final class StreamingRuns {

    private StreamingRuns() {}

    /**
     * Checkpoints every second, and every table's hours due 15 minutes after their end, so that
     * ticks 20 minutes into the current hour complete every hour before it.
     */
    static Path fasten(Path yaml) throws IOException {
        Files.writeString(
                yaml,
                Files.readString(yaml)
                        .replace("interval: 10s", "interval: 1s")
                        .replace("allowed_lateness: 1h", "allowed_lateness: 15m"));
        return yaml;
    }

    /** Sends records in the background, {@code perTick} every 20 ms, until all are sent. */
    static final class Producer implements AutoCloseable {
        private final ScheduledExecutorService thread =
                Executors.newSingleThreadScheduledExecutor();
        private final KafkaProducer<byte[], byte[]> kafka;
        private final List<GeneratedRecord> records;
        private final AtomicInteger sent = new AtomicInteger();

        Producer(String bootstrap, List<GeneratedRecord> records, int perTick) {
            this.kafka = Topics.producer(bootstrap);
            this.records = records;
            thread.scheduleAtFixedRate(
                    () -> {
                        int from = sent.get();
                        int to = Math.min(records.size(), from + perTick);
                        for (GeneratedRecord r : records.subList(from, to)) {
                            kafka.send(new ProducerRecord<>(r.topic(), r.key(), r.value()));
                        }
                        kafka.flush();
                        sent.set(to);
                    },
                    0,
                    20,
                    TimeUnit.MILLISECONDS);
        }

        int sent() {
            return sent.get();
        }

        boolean done() {
            return sent.get() == records.size();
        }

        @Override
        public void close() {
            thread.shutdownNow();
            try {
                thread.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            kafka.close();
        }
    }

    /** Sends each record to both partitions of its topic: the copies are duplicates of one id. */
    static void sendToBothPartitions(String bootstrap, List<GeneratedRecord> records) {
        try (KafkaProducer<byte[], byte[]> kafka = Topics.producer(bootstrap)) {
            for (GeneratedRecord r : records) {
                for (int partition = 0; partition < 2; partition++) {
                    kafka.send(new ProducerRecord<>(r.topic(), partition, r.key(), r.value()));
                }
            }
        }
    }

    /** A few valid records of every table in the minute from {@code at}, with ids of their own. */
    static List<GeneratedRecord> ticks(SluiceConfig config, long at, long seed) {
        List<GeneratedRecord> ticks = new ArrayList<>();
        for (TableConfig t : config.tables()) {
            new Generator(
                            List.of(t),
                            GeneratorOptions.defaults(3, seed)
                                    .withStart(Instant.ofEpochMilli(at))
                                    .withSpan(Duration.ofMinutes(1))
                                    .withRates(0, 0, 0))
                    .run(ticks::add);
        }
        return ticks;
    }

    /**
     * Waits until the first round of {@code ticks}, already sent, has landed in every table, sends
     * {@code moreTicks} to both partitions (a commit whose barrier has the watermark the first
     * round moved), then asserts that every valid id of {@code all} landed exactly once and every
     * hour before {@code tickHour} has its manifest.
     */
    static void landAll(
            String bootstrap,
            SluiceConfig config,
            List<GeneratedRecord> ticks,
            List<GeneratedRecord> moreTicks,
            List<GeneratedRecord> all,
            long tickHour,
            java.util.function.Function<String, Path> rawDir,
            Duration timeout)
            throws InterruptedException {
        for (TableConfig t : config.tables()) {
            Path raw = rawDir.apply(t.name());
            Set<String> first = validIds(ticks, t.name());
            Await.until(
                    t.name() + ": the first ticks landed",
                    timeout,
                    () -> landedIds(raw).containsAll(first));
        }
        sendToBothPartitions(bootstrap, moreTicks);
        for (TableConfig t : config.tables()) {
            Path raw = rawDir.apply(t.name());
            Set<String> valid = validIds(all, t.name());
            Await.until(
                    t.name() + ": every valid id landed",
                    timeout,
                    () -> landedIds(raw).containsAll(valid));
            Await.until(
                    t.name() + ": every complete hour has its manifest",
                    timeout,
                    () -> published(raw, tickHour));
            org.assertj.core.api.Assertions.assertThat(landedIds(raw))
                    .as(t.name() + ": every valid id landed exactly once")
                    .containsExactlyInAnyOrderElementsOf(valid);
        }
    }

    /**
     * Asserts that the warehouse manifest of each hour before {@code openHour} counts exactly the
     * rows landed in that hour, for every table; returns the rows compacted.
     */
    static long assertCompactedAsLanded(
            SluiceConfig config,
            java.util.function.Function<String, Path> rawDir,
            long openHour,
            String where)
            throws IOException {
        long compactedRows = 0;
        for (TableConfig t : config.tables()) {
            Map<String, Long> landed = new java.util.TreeMap<>();
            for (Landing.Row r : Landing.rows(rawDir.apply(t.name()))) {
                if (io.sluice.lake.HourPartitioner.parse(r.partition()) < openHour) {
                    landed.merge(r.partition(), 1L, Long::sum);
                }
            }
            Map<String, Long> compacted = new java.util.TreeMap<>();
            for (io.sluice.lake.WarehouseManifest hour :
                    io.sluice.lake.WarehouseManifest.readAll(
                            config.tablePath("warehouse", t.name()))) {
                compacted.put(hour.partition(), hour.rows());
            }
            org.assertj.core.api.Assertions.assertThat(compacted)
                    .as(t.name() + ": each complete hour's rows" + where)
                    .isEqualTo(landed);
            compactedRows += compacted.values().stream().mapToLong(Long::longValue).sum();
        }
        return compactedRows;
    }

    static List<LandingScan.Hour> hours(Path raw) {
        try {
            return LandingScan.scan(new org.apache.flink.core.fs.Path(raw.toUri()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether every hour before {@code openHour} has a manifest covering its files. */
    static boolean published(Path raw, long openHour) {
        return hours(raw).stream()
                .filter(h -> h.hourStart() < openHour)
                .noneMatch(LandingScan.Hour::unpublished);
    }

    /** The ids in a table's landing zone, once for each time they landed. */
    static List<String> landedIds(Path raw) {
        return Landing.rows(raw).stream().map(r -> r.record().get("event_id").toString()).toList();
    }

    static Set<String> validIds(List<GeneratedRecord> generated, String table) {
        Set<String> ids = new HashSet<>();
        for (GeneratedRecord r : generated) {
            if (r.table().equals(table) && r.kind() != GeneratedRecord.Kind.INVALID) {
                ids.add(r.eventId());
            }
        }
        return ids;
    }

    /**
     * Whether every features job consumer group has committed the end of its topic's {@code
     * partitions} partitions.
     */
    static boolean consumedAll(String bootstrap, SluiceConfig config, int partitions) {
        Map<String, Object> props = Map.of("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(props)) {
            for (var view : config.featureViews()) {
                String topic = config.table(view.source()).orElseThrow().topic();
                String group = config.kafka().group() + "-features-" + view.name();
                Map<TopicPartition, OffsetAndMetadata> committed =
                        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
                }
                for (var end : admin.listOffsets(latest).all().get().entrySet()) {
                    OffsetAndMetadata c = committed.get(end.getKey());
                    if (c == null || c.offset() < end.getValue().offset()) {
                        return false;
                    }
                }
            }
            return true;
        } catch (Exception notYet) {
            return false;
        }
    }
}
