package io.sluice.event;

import static io.sluice.event.JsonValues.absent;
import static io.sluice.event.JsonValues.describe;
import static io.sluice.event.JsonValues.instant;
import static io.sluice.event.JsonValues.isTimestamp;
import static io.sluice.event.JsonValues.text;
import static io.sluice.event.JsonValues.unknownField;
import static io.sluice.event.JsonValues.wrongType;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The tree path of {@link JsonRecordDecoder}: values of records, arrays, maps and unions of several
 * types, which are rare in events, decoded from a parsed {@link JsonNode} with the same rules and
 * errors as the streamed top-level fields.
 */
final class JsonTreeDecoder {

    private final boolean strict;

    /**
     * @param strict whether fields that a record's schema does not know are an error
     */
    JsonTreeDecoder(boolean strict) {
        this.strict = strict;
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

    Object value(Schema s, JsonNode v, String path) throws InvalidEventException {
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
}
