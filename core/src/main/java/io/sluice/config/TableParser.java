package io.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/** Reads one entry of {@code tables} and checks its field references against its Avro schema. */
final class TableParser {
    static final List<String> KEYS =
            List.of(
                    "name",
                    "topic",
                    "schema",
                    "format",
                    "event_time",
                    "key",
                    "id",
                    "buckets",
                    "allowed_lateness",
                    "max_out_of_orderness",
                    "idleness",
                    "strict",
                    "max_record_bytes",
                    "max_future",
                    "max_past",
                    "dedup_retention");

    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private TableParser() {}

    static ParsedTable parse(YamlMapping m) {
        int before = m.ctx().problems().count();
        String name = m.requiredString("name");
        if (name != null && !Names.isIdentifier(name)) {
            m.report(
                    "name",
                    Names.IDENTIFIER_RULE + " (it becomes a directory name), got '" + name + "'");
            name = null;
        }
        String topic = m.requiredString("topic");
        if (topic != null && !isTopic(topic)) {
            m.report(
                    "topic",
                    "must be a legal Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -), got '"
                            + topic
                            + "'");
            topic = null;
        }
        if (topic != null && topic.endsWith(TableConfig.DEAD_LETTER_SUFFIX)) {
            String source =
                    topic.substring(0, topic.length() - TableConfig.DEAD_LETTER_SUFFIX.length());
            m.report(
                    "topic",
                    "'"
                            + topic
                            + "' is a dead-letter topic (the ingest job writes there the records"
                            + " it refuses from '"
                            + source
                            + "'); a table may not read a topic ending in '"
                            + TableConfig.DEAD_LETTER_SUFFIX
                            + "'");
            topic = null;
        }
        String schemaName = m.requiredString("schema");
        Schema schema = schemaName == null ? null : resolve(m, schemaName);
        TableFormat format = m.optionalChoice("format", TableFormat.class, TableFormat.JSON);
        String eventTime =
                field(
                        m,
                        schema,
                        "event_time",
                        AvroFields::isTimestamp,
                        "a non-null long with logicalType timestamp-millis or timestamp-micros");
        String key =
                field(
                        m,
                        schema,
                        "key",
                        s ->
                                s.getType() == Type.STRING
                                        || s.getType() == Type.INT
                                        || s.getType() == Type.LONG,
                        "a non-null string, int or long");
        String id =
                field(
                        m,
                        schema,
                        "id",
                        s -> s.getType() == Type.STRING || s.getType() == Type.LONG,
                        "a non-null string or long");
        Integer buckets = m.requiredInt("buckets", 1, 100_000);
        Duration allowedLateness =
                m.optionalDuration("allowed_lateness", true, Duration.ofMinutes(15));
        Duration maxOutOfOrderness =
                m.optionalDuration("max_out_of_orderness", true, Duration.ofSeconds(30));
        // Zero would declare a partition idle between any two records and let the watermark
        // overtake it.
        Duration idleness = m.optionalDuration("idleness", false, Duration.ofMinutes(1));
        Boolean strict = m.optionalBoolean("strict", false);
        Integer maxRecordBytes = m.optionalInt("max_record_bytes", 1, 10 * 1024 * 1024, 65536);
        Duration maxFuture = m.optionalDuration("max_future", true, Duration.ofHours(1));
        Duration maxPast = m.optionalDuration("max_past", false, Duration.ofDays(30));
        Duration dedupRetention = m.optionalDuration("dedup_retention", false, Duration.ofHours(1));

        TableConfig config = null;
        if (m.ctx().problems().count() == before) {
            config =
                    new TableConfig(
                            name,
                            topic,
                            schemaName,
                            schema,
                            format,
                            eventTime,
                            key,
                            id,
                            buckets,
                            allowedLateness,
                            maxOutOfOrderness,
                            idleness,
                            strict,
                            maxRecordBytes,
                            maxFuture,
                            maxPast,
                            dedupRetention);
        }
        return new ParsedTable(m, name, topic, schema, key, config);
    }

    private static boolean isTopic(String topic) {
        // Kafka itself refuses "." and ".." although they match the character rule.
        return TOPIC.matcher(topic).matches() && !topic.equals(".") && !topic.equals("..");
    }

    private static Schema resolve(YamlMapping m, String schemaName) {
        Schema schema;
        try {
            schema = m.ctx().schemaResolver().apply(schemaName);
        } catch (RuntimeException e) {
            m.report("schema", "cannot load schema '" + schemaName + "': " + e.getMessage());
            return null;
        }
        if (schema == null) {
            m.report("schema", "unknown schema '" + schemaName + "'");
            return null;
        }
        if (schema.getType() != Type.RECORD) {
            m.report("schema", "schema '" + schemaName + "' is not a record schema");
            return null;
        }
        return schema;
    }

    /** Reads a required field reference and checks it exists with an acceptable type. */
    private static String field(
            YamlMapping m, Schema schema, String key, Predicate<Schema> accepts, String expected) {
        String field = m.requiredString(key);
        if (field == null || schema == null) {
            return field;
        }
        Schema fieldSchema = AvroFields.fieldSchema(schema, field);
        if (fieldSchema == null) {
            m.report(key, AvroFields.unknownField(schema, field));
            return null;
        }
        if (!accepts.test(fieldSchema)) {
            m.report(
                    key,
                    "field '"
                            + field
                            + "' must be "
                            + expected
                            + ", but is "
                            + AvroFields.describe(fieldSchema));
            return null;
        }
        return field;
    }
}
