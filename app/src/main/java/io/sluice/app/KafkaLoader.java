package io.sluice.app;

import io.sluice.generate.GeneratedRecord;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces generated records to Kafka, optionally at a fixed rate. Callers must close it. */
final class KafkaLoader implements Consumer<GeneratedRecord>, AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final long nanosPerRecord;
    private final long startNanos = System.nanoTime();
    private long sent;

    /**
     * @param rate records per second, or 0 for as fast as the broker takes them
     */
    KafkaLoader(String bootstrap, double rate) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(4 * 1024 * 1024));
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        nanosPerRecord = rate > 0 ? (long) (1e9 / rate) : 0;
    }

    @Override
    public void accept(GeneratedRecord r) {
        if (nanosPerRecord > 0) {
            // Pace to the requested rate: a load generator's job, not a wait for a condition.
            long due = startNanos + sent * nanosPerRecord;
            long ahead = due - System.nanoTime();
            if (ahead > 0) {
                LockSupport.parkNanos(ahead);
            }
        }
        producer.send(new ProducerRecord<>(r.topic(), r.key(), r.value()));
        sent++;
    }

    long sent() {
        return sent;
    }

    @Override
    public void close() {
        producer.flush();
        producer.close(java.time.Duration.ofSeconds(30));
    }
}
