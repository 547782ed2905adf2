package io.sluice.event;

import static io.sluice.event.JsonValues.absent;
import static io.sluice.event.JsonValues.describe;
import static io.sluice.event.JsonValues.instant;
import static io.sluice.event.JsonValues.isTimestamp;
import static io.sluice.event.JsonValues.text;
import static io.sluice.event.JsonValues.unknownField;
import static io.sluice.event.JsonValues.wrongType;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.config.Nullable;
import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.Map;
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
    private final JsonTreeDecoder tree;

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
        this.tree = new JsonTreeDecoder(strict);
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
        Schema type = Nullable.valueType(s);
        JsonToken token = p.currentToken();
        switch (type.getType()) {
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
                return tree.value(s, MAPPER.readTree(p), path);
        }
        throw wrongType(path, describe(type), token, p.getText());
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
}
