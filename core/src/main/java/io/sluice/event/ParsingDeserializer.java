package io.sluice.event;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Parses records inside the Kafka source, so that event-time watermarks are generated per
 * partition. Every record is emitted, valid or not: bad ones as dead letters, never as exceptions.
 */
public final class ParsingDeserializer implements KafkaRecordDeserializationSchema<Parsed> {

    private static final long serialVersionUID = 1L;

    private final ParseSpec spec;
    private transient EventParser parser;

    public ParsingDeserializer(ParseSpec spec) {
        this.spec = spec;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        parser = new EventParser(spec, System::currentTimeMillis);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Parsed> out) {
        // EventParser never throws: every failure, a decoder bug included, is a dead letter.
        out.collect(
                parser.parse(
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.timestamp(),
                        record.key(),
                        record.value()));
    }

    @Override
    public TypeInformation<Parsed> getProducedType() {
        return TypeInformation.of(Parsed.class);
    }
}
