package io.sluice.ingest;

import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetter;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes a dead letter to its topic with the original key and value bytes untouched, and the reason
 * and source coordinates as headers, so a fixed record can be replayed byte for byte.
 */
public final class DeadLetterSerializer implements KafkaRecordSerializationSchema<DeadLetter> {

    private static final long serialVersionUID = 1L;

    public static final String REASON = "sluice.reason";
    public static final String ERROR = "sluice.error";
    public static final String TABLE = "sluice.table";
    public static final String SOURCE_TOPIC = "sluice.source.topic";
    public static final String SOURCE_PARTITION = "sluice.source.partition";
    public static final String SOURCE_OFFSET = "sluice.source.offset";
    public static final String SOURCE_TIMESTAMP = "sluice.source.timestamp";

    private final String topic;

    public DeadLetterSerializer(String topic) {
        this.topic = topic;
    }

    /** The dead-letter topic of a source topic. */
    public static String topicFor(String sourceTopic) {
        return sourceTopic + TableConfig.DEAD_LETTER_SUFFIX;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            DeadLetter letter, KafkaSinkContext context, Long timestamp) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(REASON, utf8(letter.reason));
        headers.add(ERROR, utf8(letter.message));
        headers.add(TABLE, utf8(letter.table));
        headers.add(SOURCE_TOPIC, utf8(letter.topic));
        headers.add(SOURCE_PARTITION, utf8(Integer.toString(letter.partition)));
        headers.add(SOURCE_OFFSET, utf8(Long.toString(letter.offset)));
        headers.add(SOURCE_TIMESTAMP, utf8(Long.toString(letter.timestamp)));
        return new ProducerRecord<>(topic, null, null, letter.key, letter.value, headers);
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
