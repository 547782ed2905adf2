package io.sluice.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
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
 *
 * <p>Bounded: the parser refuses nesting deeper than {@link #MAX_DEPTH}, numbers longer than {@link
 * #MAX_NUMBER_CHARS} and documents or strings longer than the table's {@code max_record_bytes}.
 * Text is strict: the bytes must be well-formed UTF-8 and no string may hold a lone UTF-16
 * surrogate (such as the escape {@code \\ud800} in a string); both are malformed rather than
 * rewritten.
 */
public final class JsonRecordDecoder implements RecordDecoder {

    /** For the tree path; the top-level object is read from the factory's parsers directly. */
    private static final ObjectMapper MAPPER =
            JsonMapper.builder()
                    .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .build();

    /** Deeper than any schema; only unknown fields of lenient tables can nest further. */
    static final int MAX_DEPTH = 64;

    /** Far longer than any long or double needs; bounds BigInteger and BigDecimal parsing. */
    static final int MAX_NUMBER_CHARS = 200;

    private final JsonFactory factory;
    private final Schema schema;
    private final boolean strict;

    /**
     * Field lookup by the parser's canonical (interned) name instances: an identity hit skips
     * hashing and comparing the name, which showed up in profiles.
     */
    private final Map<String, Schema.Field> fields = new IdentityHashMap<>();

    /**
     * @param schema the record schema to decode into
     * @param strict whether fields that the schema does not know are an error
     * @param maxRecordBytes the largest document, and so string, the parser reads
     */
    public JsonRecordDecoder(Schema schema, boolean strict, int maxRecordBytes) {
        this.schema = schema;
        this.strict = strict;
        this.factory =
                JsonFactory.builder()
                        .streamReadConstraints(
                                StreamReadConstraints.builder()
                                        .maxNestingDepth(MAX_DEPTH)
                                        .maxNumberLength(MAX_NUMBER_CHARS)
                                        .maxStringLength(Math.max(1, maxRecordBytes))
                                        .maxDocumentLength(Math.max(1, maxRecordBytes))
                                        .build())
                        .build();
    }

    @Override
    public GenericRecord decode(byte[] bytes) throws InvalidEventException {
        int invalid = StrictText.invalidUtf8(bytes, 0, bytes.length);
        if (invalid >= 0) {
            throw new InvalidEventException(
                    Reason.MALFORMED, "malformed JSON: invalid UTF-8 at byte " + invalid);
        }
        // Duplicate keys are caught per field below; the parser's own detection costs a hash set
        // per object on the hot path.
        try (JsonParser parser = factory.createParser(bytes)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidEventException(Reason.MALFORMED, "expected a JSON object");
            }
            GenericRecord record = streamRecord(parser);
            if (parser.nextToken() != null) {
                throw new InvalidEventException(
                        Reason.MALFORMED, "malformed JSON: trailing content after the object");
            }
            return record;
        } catch (JsonProcessingException e) {
            throw new InvalidEventException(
                    Reason.MALFORMED, "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidEventException(Reason.MALFORMED, "unreadable JSON: " + e);
        }
    }

    /**
     * Reads the top-level object token by token, straight into the record: no intermediate tree,
     * which is most of the cost of decoding on the ingest hot path. Nested values of complex types
     * take the tree path below.
     */
    private GenericRecord streamRecord(JsonParser parser)
            throws IOException, InvalidEventException {
        GenericData.Record record = new GenericData.Record(schema);
        boolean[] present = new boolean[schema.getFields().size()];
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            Schema.Field field = fields.get(name);
            if (field == null) {
                field = schema.getField(name);
                if (field != null && fields.size() < 1024) {
                    fields.put(name, field);
                }
            }
            JsonToken token = parser.nextToken();
            if (field == null) {
                if (strict) {
                    throw unknownField(schema, "", name);
                }
                parser.skipChildren();
                continue;
            }
            if (present[field.pos()]) {
                throw new InvalidEventException(
                        Reason.MALFORMED, "malformed JSON: duplicate field '" + name + "'");
            }
            present[field.pos()] = true;
            record.put(
                    field.pos(),
                    token == JsonToken.VALUE_NULL
                            ? absent(field, false, name)
                            : streamValue(field.schema(), parser, name));
        }
        for (Schema.Field field : schema.getFields()) {
            if (!present[field.pos()]) {
                record.put(field.pos(), absent(field, true, field.name()));
            }
        }
        return record;
    }

    private Object streamValue(Schema s, JsonParser p, String path)
            throws IOException, InvalidEventException {
        Schema type = s.getType() == Schema.Type.UNION ? singleNonNullBranch(s) : s;
        JsonToken token = p.currentToken();
        switch (type == null ? Schema.Type.UNION : type.getType()) {
            case STRING:
                if (token == JsonToken.VALUE_STRING) {
                    return text(p.getText(), path);
                }
                break;
            case ENUM:
                if (token == JsonToken.VALUE_STRING) {
                    String symbol = p.getText();
                    if (type.hasEnumSymbol(symbol)) {
                        return GenericData.get().createEnum(symbol, type);
                    }
                    throw wrongType(path, "one of " + type.getEnumSymbols(), token, symbol);
                }
                break;
            case BOOLEAN:
                if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE) {
                    return token == JsonToken.VALUE_TRUE;
                }
                break;
            case INT:
                if (token == JsonToken.VALUE_NUMBER_INT
                        && p.getNumberType() == JsonParser.NumberType.INT) {
                    return p.getIntValue();
                }
                break;
            case LONG:
                return streamLong(type, p, path);
            case FLOAT:
            case DOUBLE:
                if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                    double d = p.getDoubleValue();
                    if (type.getType() == Schema.Type.FLOAT && Float.isFinite((float) d)) {
                        return (float) d;
                    }
                    if (type.getType() == Schema.Type.DOUBLE && Double.isFinite(d)) {
                        return d;
                    }
                }
                break;
            default:
                // Records, arrays, maps and unions of several types: rare, so the tree path.
                return value(s, MAPPER.readTree(p), path);
        }
        throw wrongType(path, describe(type), token, p.getText());
    }

    /** A decoded string, refused if it holds a lone surrogate. */
    private static String text(String s, String path) throws InvalidEventException {
        int at = StrictText.loneSurrogate(s);
        if (at >= 0) {
            throw new InvalidEventException(
                    Reason.MALFORMED,
                    "malformed JSON: field '"
                            + path
                            + "' holds a lone UTF-16 surrogate \\u"
                            + Integer.toHexString(s.charAt(at))
                            + " at char "
                            + at);
        }
        return s;
    }

    private static Object streamLong(Schema s, JsonParser p, String path)
            throws IOException, InvalidEventException {
        JsonToken token = p.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT
                && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            return p.getLongValue();
        }
        if (token == JsonToken.VALUE_STRING && isTimestamp(s)) {
            return instant(s, p.getText(), path);
        }
        throw wrongType(
                path,
                isTimestamp(s) ? "an ISO-8601 instant or epoch number" : "long",
                token,
                p.getText());
    }

    private static Schema singleNonNullBranch(Schema union) {
        Schema only = null;
        for (Schema branch : union.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                if (only != null) {
                    return null;
                }
                only = branch;
            }
        }
        return only;
    }

    private static InvalidEventException unknownField(Schema record, String path, String name) {
        return new InvalidEventException(
                Reason.UNKNOWN_FIELD,
                "unknown field '" + path + name + "' under strict schema " + record.getName());
    }

    private GenericRecord record(Schema recordSchema, JsonNode node, String path)
            throws InvalidEventException {
        if (strict) {
            for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (recordSchema.getField(name) == null) {
                    throw unknownField(recordSchema, path, name);
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
                    return text(v.textValue(), path);
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
                                text(e.getKey(), path + " (a key)"),
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
        if (v.isIntegralNumber() && v.canConvertToLong()) {
            return v.longValue();
        }
        if (isTimestamp(s) && v.isTextual()) {
            return instant(s, v.textValue(), path);
        }
        throw wrongType(path, isTimestamp(s) ? "an ISO-8601 instant or epoch number" : "long", v);
    }

    private static boolean isTimestamp(Schema s) {
        LogicalType logical = s.getLogicalType();
        return logical instanceof LogicalTypes.TimestampMillis
                || logical instanceof LogicalTypes.TimestampMicros;
    }

    private static long instant(Schema s, String text, String path) throws InvalidEventException {
        try {
            Instant instant = IsoInstants.parse(text);
            return s.getLogicalType() instanceof LogicalTypes.TimestampMicros
                    ? Math.addExact(
                            Math.multiplyExact(instant.getEpochSecond(), 1_000_000L),
                            instant.getNano() / 1_000L)
                    : instant.toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw wrongType(
                    path, "an ISO-8601 instant or epoch number", JsonToken.VALUE_STRING, text);
        }
    }

    private static boolean isNullable(Schema s) {
        if (s.getType() == Schema.Type.NULL) {
            return true;
        }
        if (s.getType() == Schema.Type.UNION) {
            // A loop, not a stream: this runs for every absent or null field of every record.
            for (Schema t : s.getTypes()) {
                if (t.getType() == Schema.Type.NULL) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String describe(Schema s) {
        return s.getLogicalType() != null ? s.getLogicalType().getName() : s.getType().getName();
    }

    private static InvalidEventException wrongType(String path, String expected, JsonNode v) {
        return wrongType(path, expected, v.getNodeType().toString(), v.toString());
    }

    private static InvalidEventException wrongType(
            String path, String expected, JsonToken token, String text) {
        String kind =
                switch (token) {
                    case VALUE_STRING -> "STRING";
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "NUMBER";
                    case VALUE_TRUE, VALUE_FALSE -> "BOOLEAN";
                    case START_OBJECT -> "OBJECT";
                    case START_ARRAY -> "ARRAY";
                    default -> String.valueOf(token);
                };
        return wrongType(
                path, expected, kind, token == JsonToken.VALUE_STRING ? '"' + text + '"' : text);
    }

    private static InvalidEventException wrongType(
            String path, String expected, String kind, String shown) {
        if (shown.length() > 64) {
            shown = shown.substring(0, 64) + "...";
        }
        return new InvalidEventException(
                Reason.WRONG_TYPE,
                "field '" + path + "' expects " + expected + ", got " + kind + " " + shown);
    }
}
