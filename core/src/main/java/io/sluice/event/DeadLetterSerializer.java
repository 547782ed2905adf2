package io.sluice.event;

import io.sluice.config.TableConfig;
import io.sluice.lake.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Properties;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes a dead letter to its topic with the original key and value bytes untouched, and the reason
 * and source coordinates as headers, so a fixed record can be replayed byte for byte.
 *
 * <p>Unless it is too large: the serialized record (key, value and headers) is kept under {@code
 * maxRecordBytes}, so that the producer's {@code max.request.size} and the broker's {@code
 * message.max.bytes} can never refuse it (a refusal would fail the sink, restart the job and stop
 * the table for good). A larger dead letter keeps a prefix of its value (and of its key, if that
 * alone is too large) and says so in headers: {@link #TRUNCATED} {@code true}, {@link
 * #ORIGINAL_BYTES} the original value's size and {@link #ORIGINAL_SHA256} the hex SHA-256 of the
 * whole original value (and {@link #ORIGINAL_KEY_BYTES} / {@link #ORIGINAL_KEY_SHA256} for a cut
 * key). A long error message is cut too.
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
    public static final String TRUNCATED = "sluice.truncated";
    public static final String ORIGINAL_BYTES = "sluice.original.bytes";
    public static final String ORIGINAL_SHA256 = "sluice.original.sha256";
    public static final String ORIGINAL_KEY_BYTES = "sluice.original.key.bytes";
    public static final String ORIGINAL_KEY_SHA256 = "sluice.original.key.sha256";

    /** The default cap of a serialized dead letter: well under Kafka's 1 MiB defaults. */
    public static final int DEFAULT_MAX_RECORD_BYTES = 900 * 1024;

    /** The smallest cap accepted: room for the headers and some of the value. */
    static final int MIN_MAX_RECORD_BYTES = 16 * 1024;

    /** Kafka's per-batch and per-record framing, rounded up generously. */
    static final int RECORD_OVERHEAD = 512;

    /** Per header: the two length varints, rounded up. */
    static final int HEADER_OVERHEAD = 16;

    /** Error messages are cut to this many chars. */
    static final int MAX_ERROR_CHARS = 4096;

    private final String topic;
    private final int maxRecordBytes;

    public DeadLetterSerializer(String topic) {
        this(topic, DEFAULT_MAX_RECORD_BYTES);
    }

    /**
     * @param topic the dead-letter topic
     * @param maxRecordBytes the most a serialized dead letter may take, framing included
     */
    public DeadLetterSerializer(String topic, int maxRecordBytes) {
        if (maxRecordBytes < MIN_MAX_RECORD_BYTES) {
            throw new IllegalArgumentException(
                    "dead-letter cap " + maxRecordBytes + " < " + MIN_MAX_RECORD_BYTES);
        }
        this.topic = topic;
        this.maxRecordBytes = maxRecordBytes;
    }

    /** The dead-letter topic of a source topic. */
    public static String topicFor(String sourceTopic) {
        return sourceTopic + TableConfig.DEAD_LETTER_SUFFIX;
    }

    /**
     * The cap for a producer configured with {@code producer}: {@link #DEFAULT_MAX_RECORD_BYTES},
     * or 16 KiB under its {@code max.request.size} when that is smaller. (Not more when it is
     * larger: the broker's {@code message.max.bytes} is 1 MiB unless raised, and is not known
     * here.)
     */
    public static int maxRecordBytes(Properties producer) {
        Object configured = producer.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        long request = configured == null ? 1 << 20 : Long.parseLong(configured.toString().trim());
        return (int)
                Math.max(
                        MIN_MAX_RECORD_BYTES,
                        Math.min(DEFAULT_MAX_RECORD_BYTES, request - MIN_MAX_RECORD_BYTES));
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            DeadLetter letter, KafkaSinkContext context, Long timestamp) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(REASON, utf8(letter.reason));
        headers.add(ERROR, utf8(cut(letter.message)));
        headers.add(TABLE, utf8(letter.table));
        headers.add(SOURCE_TOPIC, utf8(letter.topic));
        headers.add(SOURCE_PARTITION, utf8(Integer.toString(letter.partition)));
        headers.add(SOURCE_OFFSET, utf8(Long.toString(letter.offset)));
        headers.add(SOURCE_TIMESTAMP, utf8(Long.toString(letter.timestamp)));
        byte[] key = letter.key;
        byte[] value = letter.value;
        int keyBytes = key == null ? 0 : key.length;
        int valueBytes = value == null ? 0 : value.length;
        if ((long) RECORD_OVERHEAD + size(headers) + keyBytes + valueBytes > maxRecordBytes) {
            headers.add(TRUNCATED, utf8("true"));
            headers.add(ORIGINAL_BYTES, utf8(Integer.toString(valueBytes)));
            headers.add(ORIGINAL_SHA256, utf8(sha256(value)));
            // Room for the key headers whether or not they are needed.
            int budget =
                    maxRecordBytes
                            - RECORD_OVERHEAD
                            - size(headers)
                            - 2 * HEADER_OVERHEAD
                            - ORIGINAL_KEY_BYTES.length()
                            - ORIGINAL_KEY_SHA256.length()
                            - 16
                            - 64;
            // The key keeps at least half the budget, more if the value leaves more.
            int keyKept = Math.min(keyBytes, Math.max(budget / 2, budget - valueBytes));
            if (keyKept < keyBytes) {
                headers.add(ORIGINAL_KEY_BYTES, utf8(Integer.toString(keyBytes)));
                headers.add(ORIGINAL_KEY_SHA256, utf8(sha256(key)));
                key = Arrays.copyOf(key, keyKept);
                keyBytes = keyKept;
            }
            if (value != null && valueBytes > budget - keyBytes) {
                value = Arrays.copyOf(value, budget - keyBytes);
            }
        }
        return new ProducerRecord<>(topic, null, null, key, value, headers);
    }

    /** What the headers add to a record, framing included. */
    static int size(Iterable<Header> headers) {
        int size = 0;
        for (Header h : headers) {
            size +=
                    HEADER_OVERHEAD
                            + utf8(h.key()).length
                            + (h.value() == null ? 0 : h.value().length);
        }
        return size;
    }

    private static String cut(String message) {
        return message == null || message.length() <= MAX_ERROR_CHARS
                ? message
                : message.substring(0, MAX_ERROR_CHARS) + "... (" + message.length() + " chars)";
    }

    static String sha256(byte[] bytes) {
        return Sha256.hex(bytes == null ? new byte[0] : bytes);
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
