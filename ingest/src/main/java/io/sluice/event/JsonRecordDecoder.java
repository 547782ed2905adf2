package io.sluice.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Decodes plain JSON objects, as producers write them, into records of an Avro schema.
 *
 * <p>Written by hand because Avro's own JSON decoder only reads Avro's JSON encoding (unions
 * wrapped as {@code {"string": "x"}}, timestamps as bare numbers), which no ordinary producer
 * emits. Here a nullable field takes a plain value or null, and a timestamp takes epoch
 * milliseconds or an ISO-8601 instant. Every mismatch is reported with the field's path.
 */
public final class JsonRecordDecoder implements RecordDecoder {

    private static final ObjectMapper MAPPER =
            JsonMapper.builder()
                    .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .build();

    private final Schema schema;
    private final boolean strict;

    /**
     * @param schema the record schema to decode into
     * @param strict whether fields that the schema does not know are an error
     */
    public JsonRecordDecoder(Schema schema, boolean strict) {
        this.schema = schema;
        this.strict = strict;
    }

    @Override
    public GenericRecord decode(byte[] bytes) throws InvalidEventException {
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new InvalidEventException(
                    Reason.MALFORMED, "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidEventException(Reason.MALFORMED, "unreadable JSON: " + e);
        }
        if (root == null || !root.isObject()) {
            throw new InvalidEventException(Reason.MALFORMED, "expected a JSON object");
        }
        return record(schema, root, "");
    }

    private GenericRecord record(Schema recordSchema, JsonNode node, String path)
            throws InvalidEventException {
        if (strict) {
            for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (recordSchema.getField(name) == null) {
                    throw new InvalidEventException(
                            Reason.UNKNOWN_FIELD,
                            "unknown field '"
                                    + path
                                    + name
                                    + "' under strict schema "
                                    + recordSchema.getName());
                }
            }
        }
        GenericData.Record record = new GenericData.Record(recordSchema);
        for (Schema.Field field : recordSchema.getFields()) {
            String fieldPath = path + field.name();
            JsonNode value = node.get(field.name());
            if (value == null || value.isNull()) {
                record.put(field.pos(), absent(field, value == null, fieldPath));
            } else {
                record.put(field.pos(), value(field.schema(), value, fieldPath));
            }
        }
        return record;
    }

    private static Object absent(Schema.Field field, boolean missing, String path)
            throws InvalidEventException {
        if (isNullable(field.schema())) {
            return missing && field.hasDefaultValue()
                    ? GenericData.get().getDefaultValue(field)
                    : null;
        }
        if (missing && field.hasDefaultValue()) {
            return GenericData.get().getDefaultValue(field);
        }
        throw new InvalidEventException(
                Reason.MISSING_FIELD,
                (missing ? "missing required field '" : "null for required field '") + path + "'");
    }

    private Object value(Schema s, JsonNode v, String path) throws InvalidEventException {
        switch (s.getType()) {
            case UNION:
                return union(s, v, path);
            case STRING:
                if (v.isTextual()) {
                    return v.textValue();
                }
                break;
            case ENUM:
                if (v.isTextual() && s.hasEnumSymbol(v.textValue())) {
                    return GenericData.get().createEnum(v.textValue(), s);
                }
                if (v.isTextual()) {
                    throw wrongType(path, "one of " + s.getEnumSymbols(), v);
                }
                break;
            case BOOLEAN:
                if (v.isBoolean()) {
                    return v.booleanValue();
                }
                break;
            case INT:
                if (v.isIntegralNumber() && v.canConvertToInt()) {
                    return v.intValue();
                }
                break;
            case LONG:
                return longValue(s, v, path);
            case FLOAT:
                if (v.isNumber() && Float.isFinite(v.floatValue())) {
                    return v.floatValue();
                }
                break;
            case DOUBLE:
                if (v.isNumber() && Double.isFinite(v.doubleValue())) {
                    return v.doubleValue();
                }
                break;
            case RECORD:
                if (v.isObject()) {
                    return record(s, v, path + ".");
                }
                break;
            case ARRAY:
                if (v.isArray()) {
                    List<Object> items = new ArrayList<>(v.size());
                    for (int i = 0; i < v.size(); i++) {
                        items.add(value(s.getElementType(), v.get(i), path + "[" + i + "]"));
                    }
                    return new GenericData.Array<>(s, items);
                }
                break;
            case MAP:
                if (v.isObject()) {
                    Map<String, Object> map = new HashMap<>();
                    for (var it = v.fields(); it.hasNext(); ) {
                        var e = it.next();
                        map.put(
                                e.getKey(),
                                value(s.getValueType(), e.getValue(), path + "." + e.getKey()));
                    }
                    return map;
                }
                break;
            default:
                break;
        }
        throw wrongType(path, describe(s), v);
    }

    private Object union(Schema s, JsonNode v, String path) throws InvalidEventException {
        InvalidEventException last = null;
        for (Schema branch : s.getTypes()) {
            if (branch.getType() == Schema.Type.NULL) {
                continue;
            }
            try {
                return value(branch, v, path);
            } catch (InvalidEventException e) {
                last = e;
            }
        }
        throw last != null ? last : wrongType(path, describe(s), v);
    }

    private static Object longValue(Schema s, JsonNode v, String path)
            throws InvalidEventException {
        LogicalType logical = s.getLogicalType();
        boolean timestamp =
                logical instanceof LogicalTypes.TimestampMillis
                        || logical instanceof LogicalTypes.TimestampMicros;
        if (v.isIntegralNumber() && v.canConvertToLong()) {
            return v.longValue();
        }
        if (timestamp && v.isTextual()) {
            try {
                Instant instant = Instant.parse(v.textValue());
                return logical instanceof LogicalTypes.TimestampMicros
                        ? Math.addExact(
                                Math.multiplyExact(instant.getEpochSecond(), 1_000_000L),
                                instant.getNano() / 1_000L)
                        : instant.toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                throw wrongType(path, "an ISO-8601 instant or epoch number", v);
            }
        }
        throw wrongType(path, timestamp ? "an ISO-8601 instant or epoch number" : "long", v);
    }

    private static boolean isNullable(Schema s) {
        return s.getType() == Schema.Type.NULL
                || (s.getType() == Schema.Type.UNION
                        && s.getTypes().stream().anyMatch(t -> t.getType() == Schema.Type.NULL));
    }

    private static String describe(Schema s) {
        return s.getLogicalType() != null ? s.getLogicalType().getName() : s.getType().getName();
    }

    private static InvalidEventException wrongType(String path, String expected, JsonNode v) {
        String shown = v.toString();
        if (shown.length() > 64) {
            shown = shown.substring(0, 64) + "...";
        }
        return new InvalidEventException(
                Reason.WRONG_TYPE,
                "field '"
                        + path
                        + "' expects "
                        + expected
                        + ", got "
                        + v.getNodeType()
                        + " "
                        + shown);
    }
}
