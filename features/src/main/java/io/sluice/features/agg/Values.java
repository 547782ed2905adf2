package io.sluice.features.agg;

import io.sluice.config.FeatureType;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.util.Utf8;

/** Normalising source values and casting results to a declared type: one rule for every path. */
public final class Values {

    private Values() {}

    /**
     * A source field value as tiles keep it: {@link Long} for int and long, {@link Double} for
     * float and double (a float widens exactly), {@link String} for string and enum, or null.
     */
    public static Object normalise(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Integer i) {
            return i.longValue();
        }
        if (value instanceof Long) {
            return value;
        }
        if (value instanceof Float f) {
            return f.doubleValue();
        }
        if (value instanceof Double) {
            return value;
        }
        if (value instanceof Utf8
                || value instanceof CharSequence
                || value instanceof GenericEnumSymbol<?>
                || value instanceof Enum<?>) {
            return value.toString();
        }
        throw new IllegalArgumentException(
                "Unsupported feature source value type: " + value.getClass().getName());
    }

    /** A result ({@link Long}, {@link Double} or {@link String}) in the declared type. */
    public static Object as(Object value, FeatureType type) {
        if (value == null) {
            return null;
        }
        return switch (type) {
            case INT -> (int) ((Number) value).longValue();
            case LONG -> ((Number) value).longValue();
            case FLOAT -> ((Number) value).floatValue();
            case DOUBLE -> ((Number) value).doubleValue();
            case STRING -> value.toString();
        };
    }
}
