package io.sluice.config;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.avro.Schema;

/**
 * One Kafka topic landed as one lake table. The field names here have already been checked against
 * {@link #schema()}, so jobs can look them up without handling absence.
 *
 * @param name table and directory name
 * @param topic source Kafka topic
 * @param schemaName the schema name as written in the file
 * @param schema the resolved Avro record schema
 * @param format wire format of the topic
 * @param eventTime field holding the event timestamp (long, timestamp-millis or -micros)
 * @param key partitioning and entity key field (non-null string, int or long)
 * @param id deduplication id field (non-null string or long)
 * @param buckets number of hash buckets per partition, 1..100000
 * @param allowedLateness how long after the watermark late events are still accepted
 * @param maxOutOfOrderness watermark bound
 * @param idleness after which a silent partition stops holding back the watermark
 * @param strict reject JSON fields the schema does not know
 * @param maxRecordBytes larger records are invalid
 * @param maxFuture events later than now plus this are invalid
 * @param maxPast events older than now minus this are invalid
 * @param dedupRetention how long ids are remembered for deduplication
 */
public record TableConfig(
        String name,
        String topic,
        String schemaName,
        Schema schema,
        TableFormat format,
        String eventTime,
        String key,
        String id,
        int buckets,
        Duration allowedLateness,
        Duration maxOutOfOrderness,
        Duration idleness,
        boolean strict,
        int maxRecordBytes,
        Duration maxFuture,
        Duration maxPast,
        Duration dedupRetention)
        implements Serializable {
    /**
     * Ends the name of every dead-letter topic: the ingest job writes the records of {@code topic}
     * that it refuses to {@code topic + DEAD_LETTER_SUFFIX}. No table may read such a topic.
     */
    public static final String DEAD_LETTER_SUFFIX = ".dlq";

    public TableConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(schemaName, "schemaName");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(eventTime, "eventTime");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(allowedLateness, "allowedLateness");
        Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness");
        Objects.requireNonNull(idleness, "idleness");
        Objects.requireNonNull(maxFuture, "maxFuture");
        Objects.requireNonNull(maxPast, "maxPast");
        Objects.requireNonNull(dedupRetention, "dedupRetention");
    }
}
