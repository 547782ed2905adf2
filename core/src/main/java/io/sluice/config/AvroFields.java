package io.sluice.config;

import java.util.stream.Collectors;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * The questions the validator asks about a table's Avro schema. A {@code ["null", T]} union is
 * treated as a nullable {@code T}, because that is how optional fields are written in Avro.
 */
final class AvroFields {
    private AvroFields() {}

    /** The field's schema, or null if the record has no such field. */
    static Schema fieldSchema(Schema record, String field) {
        Schema.Field f = record.getField(field);
        return f == null ? null : f.schema();
    }

    /** Message for a field the record does not have, listing the ones it does. */
    static String unknownField(Schema record, String field) {
        String known =
                record.getFields().stream()
                        .map(Schema.Field::name)
                        .collect(Collectors.joining(", "));
        return "unknown field '"
                + field
                + "' in schema "
                + record.getName()
                + " (fields: "
                + known
                + ")";
    }

    static boolean isNullable(Schema s) {
        return s.getType() == Type.UNION && s.getTypes().stream().anyMatch(AvroFields::isNull);
    }

    /** The value type ignoring nullability, if it is one of {@code types}. */
    static boolean valueTypeIn(Schema s, Type... types) {
        Type actual = Nullable.valueType(s).getType();
        for (Type t : types) {
            if (t == actual) {
                return true;
            }
        }
        return false;
    }

    /** True for a non-null long carrying a timestamp-millis or timestamp-micros logical type. */
    static boolean isTimestamp(Schema s) {
        LogicalType logical = s.getLogicalType();
        return s.getType() == Type.LONG
                && logical != null
                && (logical.getName().equals("timestamp-millis")
                        || logical.getName().equals("timestamp-micros"));
    }

    /**
     * Human description for messages, e.g. {@code nullable string} or {@code long
     * (timestamp-millis)}.
     */
    static String describe(Schema s) {
        Schema value = Nullable.valueType(s);
        if (isNullable(s) && value != s) {
            return "nullable " + describe(value);
        }
        String name = s.getType().getName();
        return s.getLogicalType() == null ? name : name + " (" + s.getLogicalType().getName() + ")";
    }

    private static boolean isNull(Schema s) {
        return s.getType() == Type.NULL;
    }
}
