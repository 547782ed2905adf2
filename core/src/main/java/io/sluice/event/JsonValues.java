package io.sluice.event;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * What both paths of {@link JsonRecordDecoder} share: the value rules that are the same for a
 * streamed token and a tree node (strict text, timestamps, absent fields, nullable unions) and the
 * errors that name the field's path.
 */
final class JsonValues {

    private JsonValues() {}

    /** A decoded string, refused if it holds a lone surrogate. */
    static String text(String s, String path) throws InvalidEventException {
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

    static InvalidEventException unknownField(Schema record, String path, String name) {
        return new InvalidEventException(
                Reason.UNKNOWN_FIELD,
                "unknown field '" + path + name + "' under strict schema " + record.getName());
    }

    static Object absent(Schema.Field field, boolean missing, String path)
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

    static boolean isTimestamp(Schema s) {
        LogicalType logical = s.getLogicalType();
        return logical instanceof LogicalTypes.TimestampMillis
                || logical instanceof LogicalTypes.TimestampMicros;
    }

    static long instant(Schema s, String text, String path) throws InvalidEventException {
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

    static boolean isNullable(Schema s) {
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

    static String describe(Schema s) {
        return s.getLogicalType() != null ? s.getLogicalType().getName() : s.getType().getName();
    }

    static InvalidEventException wrongType(String path, String expected, JsonNode v) {
        return wrongType(path, expected, v.getNodeType().toString(), v.toString());
    }

    static InvalidEventException wrongType(
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

    static InvalidEventException wrongType(
            String path, String expected, String kind, String shown) {
        if (shown.length() > 64) {
            shown = shown.substring(0, 64) + "...";
        }
        return new InvalidEventException(
                Reason.WRONG_TYPE,
                "field '" + path + "' expects " + expected + ", got " + kind + " " + shown);
    }
}
