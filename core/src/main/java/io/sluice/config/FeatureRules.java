package io.sluice.config;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * Which source fields each aggregation accepts and which types its result may be served as, kept
 * apart from parsing so the rules read as a table.
 *
 * <p>A declared type must be of the same kind as the result: integral results (counts, and sums,
 * minima, maxima or last values of int/long fields) may be served as any numeric type, fractional
 * ones only as float or double, and text only as string.
 */
final class FeatureRules {
    private enum Kind {
        INTEGRAL(List.of(FeatureType.INT, FeatureType.LONG, FeatureType.FLOAT, FeatureType.DOUBLE)),
        FRACTIONAL(List.of(FeatureType.FLOAT, FeatureType.DOUBLE)),
        TEXT(List.of(FeatureType.STRING));

        final List<FeatureType> servableAs;

        Kind(List<FeatureType> servableAs) {
            this.servableAs = servableAs;
        }
    }

    private FeatureRules() {}

    static boolean takesField(Aggregation agg) {
        return agg != Aggregation.COUNT;
    }

    /** Only {@code last} may omit its window; it then covers the view's ttl. */
    static boolean needsWindow(Aggregation agg) {
        return agg != Aggregation.LAST;
    }

    /** Null if {@code agg} can aggregate the field, otherwise the reason it cannot. */
    static String checkField(Aggregation agg, String field, Schema fieldSchema) {
        boolean numeric =
                AvroFields.valueTypeIn(fieldSchema, Type.INT, Type.LONG, Type.FLOAT, Type.DOUBLE);
        if (agg == Aggregation.LAST) {
            if (numeric || AvroFields.valueTypeIn(fieldSchema, Type.STRING, Type.ENUM)) {
                return null;
            }
            return fieldIs(field, fieldSchema)
                    + "; last needs an int, long, float, double, string or enum field";
        }
        if (numeric) {
            return null;
        }
        return fieldIs(field, fieldSchema)
                + "; "
                + Names.lower(agg)
                + " needs an int, long, float or double field";
    }

    /** The served type when none is declared; {@code fieldSchema} is null only for count. */
    static FeatureType defaultType(Aggregation agg, Schema fieldSchema) {
        return switch (agg) {
            case COUNT -> FeatureType.LONG;
            case AVG -> FeatureType.DOUBLE;
            case SUM ->
                    resultKind(agg, fieldSchema) == Kind.INTEGRAL
                            ? FeatureType.LONG
                            : FeatureType.DOUBLE;
            case MIN, MAX, LAST -> sameAsField(fieldSchema);
        };
    }

    /** The types the result may be served as; the default is always among them. */
    static List<FeatureType> servableAs(Aggregation agg, Schema fieldSchema) {
        return resultKind(agg, fieldSchema).servableAs;
    }

    private static Kind resultKind(Aggregation agg, Schema fieldSchema) {
        if (agg == Aggregation.COUNT) {
            return Kind.INTEGRAL;
        }
        if (agg == Aggregation.AVG) {
            return Kind.FRACTIONAL;
        }
        return switch (Nullable.valueType(fieldSchema).getType()) {
            case INT, LONG -> Kind.INTEGRAL;
            case FLOAT, DOUBLE -> Kind.FRACTIONAL;
            default -> Kind.TEXT;
        };
    }

    private static FeatureType sameAsField(Schema fieldSchema) {
        return switch (Nullable.valueType(fieldSchema).getType()) {
            case INT -> FeatureType.INT;
            case LONG -> FeatureType.LONG;
            case FLOAT -> FeatureType.FLOAT;
            case DOUBLE -> FeatureType.DOUBLE;
            default -> FeatureType.STRING; // string, and enums served by symbol
        };
    }

    private static String fieldIs(String field, Schema fieldSchema) {
        return "field '" + field + "' is " + AvroFields.describe(fieldSchema);
    }
}
