package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.junit.jupiter.api.Test;

class DeadLetterSerializerTest {

    static final int MIB = 1 << 20;

    private static DeadLetter letter(byte[] key, byte[] value, String message) {
        return new DeadLetter(
                "page_views", "shop.page_views", 1, 77L, 5L, key, value, Reason.OVERSIZE, message);
    }

    /** The size Kafka's producer checks against max.request.size. */
    private static int kafkaSize(ProducerRecord<byte[], byte[]> r) {
        return AbstractRecords.estimateSizeInBytesUpperBound(
                RecordBatch.CURRENT_MAGIC_VALUE,
                CompressionType.NONE,
                r.key(),
                r.value(),
                r.headers().toArray());
    }

    private static String header(ProducerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @Test
    void shouldKeepSmallDeadLettersByteForByte() {
        byte[] value = "{not json".getBytes();
        ProducerRecord<byte[], byte[]> r =
                new DeadLetterSerializer("x.dlq")
                        .serialize(letter("k".getBytes(), value, "malformed"), null, null);

        assertThat(r.value()).isEqualTo(value);
        assertThat(r.key()).isEqualTo("k".getBytes());
        assertThat(header(r, DeadLetterSerializer.TRUNCATED)).isNull();
        assertThat(header(r, DeadLetterSerializer.REASON)).isEqualTo("OVERSIZE");
        assertThat(header(r, DeadLetterSerializer.SOURCE_OFFSET)).isEqualTo("77");
    }

    @Test
    void shouldTruncateADeadLetterTooLargeForTheTopicKeepingItsSizeAndDigest() throws Exception {
        // The tracker's case: ~1 MiB value, which with headers no longer fits 1 MiB.
        byte[] value = random(MIB - 100, 1);
        ProducerRecord<byte[], byte[]> r =
                new DeadLetterSerializer("x.dlq")
                        .serialize(letter("u1".getBytes(), value, "too big"), null, null);

        assertThat(kafkaSize(r)).isLessThanOrEqualTo(DeadLetterSerializer.DEFAULT_MAX_RECORD_BYTES);
        assertThat(r.value().length)
                .isGreaterThan(DeadLetterSerializer.DEFAULT_MAX_RECORD_BYTES - 4096);
        assertThat(r.value()).isEqualTo(Arrays.copyOf(value, r.value().length));
        assertThat(r.key()).isEqualTo("u1".getBytes());
        assertThat(header(r, DeadLetterSerializer.TRUNCATED)).isEqualTo("true");
        assertThat(header(r, DeadLetterSerializer.ORIGINAL_BYTES))
                .isEqualTo(Integer.toString(MIB - 100));
        assertThat(header(r, DeadLetterSerializer.ORIGINAL_SHA256)).isEqualTo(sha256(value));
        assertThat(header(r, DeadLetterSerializer.REASON)).isEqualTo("OVERSIZE");
        assertThat(header(r, DeadLetterSerializer.ERROR)).isEqualTo("too big");
        assertThat(header(r, DeadLetterSerializer.ORIGINAL_KEY_BYTES)).isNull();
    }

    @Test
    void shouldStayUnderTheCapWhateverTheKeyValueAndMessageSizes() throws Exception {
        int cap = 64 * 1024;
        DeadLetterSerializer serializer = new DeadLetterSerializer("x.dlq", cap);
        int[] sizes = {0, 1, cap / 2, cap - 600, cap, 3 * cap, 2 * MIB};
        for (int k : sizes) {
            for (int v : sizes) {
                byte[] key = k == 0 ? null : random(k, k);
                byte[] value = random(v, v + 1);
                ProducerRecord<byte[], byte[]> r =
                        serializer.serialize(
                                letter(key, value, "e".repeat(v % 50_000)), null, null);
                String what = "key " + k + ", value " + v;
                assertThat(kafkaSize(r)).as(what).isLessThanOrEqualTo(cap);
                if (header(r, DeadLetterSerializer.TRUNCATED) == null) {
                    assertThat(r.value()).as(what).isEqualTo(value);
                    assertThat(r.key()).as(what).isEqualTo(key);
                } else {
                    assertThat(header(r, DeadLetterSerializer.ORIGINAL_SHA256))
                            .isEqualTo(sha256(value));
                    assertThat(r.value())
                            .as(what)
                            .isEqualTo(Arrays.copyOf(value, r.value().length));
                    if (header(r, DeadLetterSerializer.ORIGINAL_KEY_BYTES) != null) {
                        assertThat(header(r, DeadLetterSerializer.ORIGINAL_KEY_SHA256))
                                .isEqualTo(sha256(key));
                        assertThat(r.key()).isEqualTo(Arrays.copyOf(key, r.key().length));
                        assertThat(r.key().length).as(what).isGreaterThanOrEqualTo(cap / 4);
                    } else {
                        assertThat(r.key()).as(what).isEqualTo(key);
                    }
                }
            }
        }
    }

    @Test
    void shouldDeriveTheCapFromTheProducersMaxRequestSize() {
        Properties p = new Properties();
        assertThat(DeadLetterSerializer.maxRecordBytes(p))
                .isEqualTo(DeadLetterSerializer.DEFAULT_MAX_RECORD_BYTES);
        p.setProperty("max.request.size", "262144");
        assertThat(DeadLetterSerializer.maxRecordBytes(p)).isEqualTo(262144 - 16 * 1024);
        p.setProperty("max.request.size", "10485760");
        assertThat(DeadLetterSerializer.maxRecordBytes(p))
                .isEqualTo(DeadLetterSerializer.DEFAULT_MAX_RECORD_BYTES);
    }
}
