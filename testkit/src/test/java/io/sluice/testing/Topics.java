package io.sluice.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces to and reads back from a real broker. */
public final class Topics {

    private Topics() {}

    public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return producer(bootstrap, java.util.Map.of());
    }

    /** A producer with extra settings, e.g. a larger {@code max.request.size}. */
    public static KafkaProducer<byte[], byte[]> producer(
            String bootstrap, java.util.Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.putAll(extra);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    public static void send(String bootstrap, List<ProducerRecord<byte[], byte[]>> records) {
        send(bootstrap, records, java.util.Map.of());
    }

    /** Sends in order and waits for every acknowledgement, failing on the first error. */
    public static void send(
            String bootstrap,
            List<ProducerRecord<byte[], byte[]>> records,
            java.util.Map<String, Object> extra) {
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, extra)) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            records.forEach(r -> acks.add(producer.send(r)));
            producer.flush();
            for (var ack : acks) {
                ack.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("send failed", e.getCause());
        }
    }

    /** Every committed record of a topic, read to its current end. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                            .map(i -> new TopicPartition(topic, i.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out reading " + topic);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
            }
            return out;
        }
    }

    public static String header(ConsumerRecord<?, ?> record, String name) {
        var h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
