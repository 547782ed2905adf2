package io.sluice.testing;

import io.sluice.event.Parsed;
import io.sluice.event.ParsingDeserializer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The parsing deserializer, failing the task on the first record after {@link #arm()}: a task
 * failure injected in the middle of a stream. The flag is static because the deserializer is
 * serialised into the job; one test at a time may use it.
 */
public final class FailOnce implements KafkaRecordDeserializationSchema<Parsed> {

    private static final AtomicBoolean FAIL_NEXT_RECORD = new AtomicBoolean();

    private final ParsingDeserializer inner;

    public FailOnce(ParsingDeserializer inner) {
        this.inner = inner;
    }

    /** The next record read fails its task. */
    public static void arm() {
        FAIL_NEXT_RECORD.set(true);
    }

    /** Whether an armed failure has happened. */
    public static boolean fired() {
        return !FAIL_NEXT_RECORD.get();
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
        inner.open(context);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Parsed> out)
            throws IOException {
        if (FAIL_NEXT_RECORD.compareAndSet(true, false)) {
            throw new IOException("injected task failure at offset " + record.offset());
        }
        inner.deserialize(record, out);
    }

    @Override
    public TypeInformation<Parsed> getProducedType() {
        return inner.getProducedType();
    }
}
