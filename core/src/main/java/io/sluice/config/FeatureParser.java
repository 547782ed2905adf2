package io.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.avro.Schema;

/** Reads one entry of a view's {@code features}, checking it against the source schema. */
final class FeatureParser {
    static final List<String> KEYS = List.of("name", "agg", "field", "window", "type");

    private FeatureParser() {}

    /**
     * @param schema the source table's schema, or null if it could not be resolved
     * @param tile the view's tile, or null if invalid
     * @param ttl the view's ttl, or null if invalid
     * @return the feature, or null if anything about it (or what it depends on) is invalid
     */
    static FeatureConfig parse(YamlMapping m, Schema schema, Duration tile, Duration ttl) {
        int before = m.ctx().problems().count();
        String name = m.requiredString("name");
        if (name != null && !Names.isIdentifier(name)) {
            m.report(
                    "name",
                    Names.IDENTIFIER_RULE + " (it becomes a column name), got '" + name + "'");
        }
        Aggregation agg = m.requiredChoice("agg", Aggregation.class);
        String field = null;
        Schema fieldSchema = null;
        if (agg != null && !FeatureRules.takesField(agg)) {
            if (m.has("field")) {
                m.report("field", Names.lower(agg) + " takes no field");
            }
        } else if (agg != null) {
            field = requiredFor(m, "field", agg) ? m.optionalString("field", null) : null;
            fieldSchema =
                    field == null || schema == null ? null : fieldSchema(m, schema, agg, field);
        }
        Duration window = window(m, agg, tile, ttl);
        boolean fieldKnown = agg != null && (!FeatureRules.takesField(agg) || fieldSchema != null);
        FeatureType type = fieldKnown ? type(m, agg, field, fieldSchema) : null;
        if (!fieldKnown) {
            // Still check the spelling, even though compatibility cannot be judged.
            m.optionalChoice("type", FeatureType.class, null);
        }
        if (m.ctx().problems().count() != before || type == null || ttl == null) {
            return null;
        }
        return new FeatureConfig(
                name,
                agg,
                Optional.ofNullable(field),
                Optional.ofNullable(window),
                type,
                window != null ? window : ttl);
    }

    private static boolean requiredFor(YamlMapping m, String key, Aggregation agg) {
        if (m.has(key)) {
            return true;
        }
        m.report(key, "required for " + Names.lower(agg));
        return false;
    }

    private static Schema fieldSchema(YamlMapping m, Schema schema, Aggregation agg, String field) {
        Schema fieldSchema = AvroFields.fieldSchema(schema, field);
        if (fieldSchema == null) {
            m.report("field", AvroFields.unknownField(schema, field));
            return null;
        }
        String problem = FeatureRules.checkField(agg, field, fieldSchema);
        if (problem != null) {
            m.report("field", problem);
            return null;
        }
        return fieldSchema;
    }

    private static Duration window(YamlMapping m, Aggregation agg, Duration tile, Duration ttl) {
        if (!m.has("window")) {
            if (agg != null && FeatureRules.needsWindow(agg)) {
                m.report("window", "required for " + Names.lower(agg));
            }
            return null;
        }
        Duration window = m.optionalDuration("window", false, null);
        if (window == null || tile == null) {
            return window;
        }
        if (!Durations.isMultipleOf(window, tile)) {
            m.report(
                    "window",
                    Durations.format(window)
                            + " is not a multiple of tile "
                            + Durations.format(tile));
            return null;
        }
        if (ttl != null && window.compareTo(ttl) > 0) {
            m.report("window", Durations.format(window) + " exceeds ttl " + Durations.format(ttl));
            return null;
        }
        return window;
    }

    private static FeatureType type(
            YamlMapping m, Aggregation agg, String field, Schema fieldSchema) {
        if (!m.has("type")) {
            return FeatureRules.defaultType(agg, fieldSchema);
        }
        FeatureType declared = m.optionalChoice("type", FeatureType.class, null);
        if (declared == null) {
            return null;
        }
        List<FeatureType> allowed = FeatureRules.servableAs(agg, fieldSchema);
        if (allowed.contains(declared)) {
            return declared;
        }
        String over =
                fieldSchema == null
                        ? ""
                        : " over " + AvroFields.describe(fieldSchema) + " field '" + field + "'";
        String use = allowed.stream().map(Names::lower).collect(Collectors.joining(" or "));
        m.report(
                "type",
                Names.lower(declared)
                        + " is not compatible with "
                        + Names.lower(agg)
                        + over
                        + " (use "
                        + use
                        + ")");
        return null;
    }
}
