package io.sluice.event;

import io.sluice.config.KafkaConfig;
import io.sluice.config.TableConfig;
import io.sluice.config.TableFormat;
import io.sluice.schemas.Schemas;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The shared front of every job that reads a table's topic: the Kafka source (parsing inside it),
 * watermarks, the split into valid events and dead letters, the exactly-once dead-letter sink, and
 * de-duplication under {@link DuplicateRule}. The ingest job and the features job both build on it,
 * so the lake and the features see the same accepted event set.
 */
public final class EventStreams {

    private EventStreams() {}

    /**
     * The shared front of every job that reads a table: source (parsing inside it), watermarks, and
     * the split into valid events and dead letters (side output {@link
     * DeadLetterRouter#DEAD_LETTERS}). Operator uids are {@code <job>-<table>-source|validate}.
     */
    public static SingleOutputStreamOperator<Event> validated(
            StreamExecutionEnvironment env,
            TableConfig table,
            Source<Parsed, ?, ?> source,
            String job) {
        String t = table.name();
        // No operator here keeps a reference to a record after emitting it, so chained operators
        // may hand records on without a defensive copy.
        env.getConfig().enableObjectReuse();
        WatermarkStrategy<Parsed> watermarks =
                ValidEventWatermarks.strategy(table.maxOutOfOrderness(), table.idleness());
        return env.fromSource(source, watermarks, "source-" + t)
                .uid(job + "-" + t + "-source")
                .process(new DeadLetterRouter())
                .uid(job + "-" + t + "-validate")
                .name("validate-" + t);
    }

    /**
     * The shared de-duplication of copies of an id ({@link DuplicateRule}), in the lake's mode: a
     * copy that beats the kept one is passed on and compaction keeps the winner. Uid {@code
     * <job>-<table>-dedup}.
     */
    public static SingleOutputStreamOperator<Event> deduplicated(
            SingleOutputStreamOperator<Event> valid, TableConfig table, String job) {
        return deduplicated(valid, table, job, false);
    }

    /**
     * The shared de-duplication, keyed by (id, event-time hour); with {@code retractions} (the
     * features job) a copy that beats the kept one is preceded by a retraction of the kept one
     * ({@link Deduplicator#withRetractions}).
     */
    public static SingleOutputStreamOperator<Event> deduplicated(
            SingleOutputStreamOperator<Event> valid,
            TableConfig table,
            String job,
            boolean retractions) {
        // The key's serializer writes each key in one call: a heap backend writes every key at
        // every checkpoint (StateKeySerializer).
        return valid.keyBy(e -> DuplicateRule.unit(e), StateKeyTypeInfo.INSTANCE)
                .process(
                        retractions
                                ? Deduplicator.withRetractions(table.dedupRetention())
                                : Deduplicator.forLake(table.dedupRetention()))
                .uid(job + "-" + table.name() + "-dedup")
                .name("dedup-" + table.name());
    }

    /** The parse path's view of a table. */
    public static ParseSpec parseSpec(TableConfig table) {
        return new ParseSpec(
                table.name(),
                table.schema(),
                Schemas.current(table.schemaName()).isPresent()
                        ? Schemas.writerSchemas(table.schemaName())
                        : java.util.List.of(table.schema()),
                table.format() == TableFormat.AVRO,
                table.strict(),
                table.id(),
                table.key(),
                table.eventTime(),
                table.maxRecordBytes(),
                table.maxPast().toMillis(),
                table.maxFuture().toMillis());
    }

    /** The table's Kafka source; parsing happens inside it, see {@link ParsingDeserializer}. */
    public static KafkaSource<Parsed> source(
            KafkaConfig kafka, TableConfig table, boolean bounded) {
        return source(kafka, table, bounded, "ingest");
    }

    /** The table's Kafka source for {@code job}, which consumes as group {@code <group>-<job>}. */
    public static KafkaSource<Parsed> source(
            KafkaConfig kafka, TableConfig table, boolean bounded, String job) {
        return source(kafka, table, bounded, job, false);
    }

    /**
     * The table's Kafka source for {@code job}; with {@code fromEarliest} it ignores the group's
     * committed offsets and reads the topic from its earliest retained offset (a rebuild).
     */
    public static KafkaSource<Parsed> source(
            KafkaConfig kafka,
            TableConfig table,
            boolean bounded,
            String job,
            boolean fromEarliest) {
        var builder =
                KafkaSource.<Parsed>builder()
                        .setBootstrapServers(kafka.bootstrap())
                        .setTopics(table.topic())
                        .setGroupId(kafka.group() + "-" + job)
                        .setStartingOffsets(
                                fromEarliest
                                        ? OffsetsInitializer.earliest()
                                        : OffsetsInitializer.committedOffsets(
                                                OffsetResetStrategy.EARLIEST))
                        .setDeserializer(new ParsingDeserializer(parseSpec(table)))
                        .setProperties(properties(kafka));
        if (bounded) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    /** Exactly-once dead letters: they become visible with the checkpoint, like the lake. */
    public static KafkaSink<DeadLetter> deadLetterSink(KafkaConfig kafka, TableConfig table) {
        Properties producer = properties(kafka);
        // Must stay under the broker's transaction.max.timeout.ms (15 min by default).
        producer.setProperty("transaction.timeout.ms", "600000");
        // Dead letters become visible only when the checkpoint commits their transaction, and the
        // sink flushes before that, so waiting to batch them costs no latency; sending each one
        // as it came kept the producer's network thread busy (see the README's profile).
        producer.putIfAbsent("linger.ms", "200");
        String topic = DeadLetterSerializer.topicFor(table.topic());
        return KafkaSink.<DeadLetter>builder()
                .setBootstrapServers(kafka.bootstrap())
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(
                        new DeadLetterSerializer(
                                topic, DeadLetterSerializer.maxRecordBytes(producer)))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                // Stable across restarts (recovery needs it) and unique per topic and group.
                .setTransactionalIdPrefix(kafka.group() + "-ingest-" + topic)
                .build();
    }

    /** The config's Kafka client properties ({@code kafka.properties}), as a new copy. */
    public static Properties properties(KafkaConfig kafka) {
        Properties props = new Properties();
        props.putAll(kafka.properties());
        return props;
    }
}
