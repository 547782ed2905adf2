package io.sluice.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one entry of {@code feature_views}. Views reference tables by name, so this runs after all
 * tables are read and checks the view against its source table's key and schema.
 */
final class FeatureViewParser {
    static final List<String> KEYS = List.of("name", "entity", "source", "tile", "ttl", "features");

    private FeatureViewParser() {}

    /** The view, or null if it or anything it depends on is invalid (always reported). */
    static FeatureViewConfig parse(YamlMapping m, Map<String, ParsedTable> tables) {
        int before = m.ctx().problems().count();
        String name = m.requiredString("name");
        if (name != null && !Names.isIdentifier(name)) {
            m.report("name", Names.IDENTIFIER_RULE + ", got '" + name + "'");
        }
        String entity = m.requiredString("entity");
        ParsedTable table = source(m, tables);
        if (table != null && entity != null && table.key() != null && !entity.equals(table.key())) {
            m.report(
                    "entity",
                    "must be the key of table '"
                            + table.name()
                            + "' ('"
                            + table.key()
                            + "'), got '"
                            + entity
                            + "'");
        }
        Duration tile = tile(m);
        Duration ttl = ttl(m, tile);
        List<FeatureConfig> features = features(m, table, tile, ttl);
        if (m.ctx().problems().count() != before || table == null || features.contains(null)) {
            return null;
        }
        return new FeatureViewConfig(name, entity, table.name(), tile, ttl, features);
    }

    private static ParsedTable source(YamlMapping m, Map<String, ParsedTable> tables) {
        String source = m.requiredString("source");
        if (source == null) {
            return null;
        }
        ParsedTable table = tables.get(source);
        if (table == null) {
            String guess = Names.closest(source, tables.keySet());
            m.report(
                    "source",
                    "unknown table '"
                            + source
                            + "'"
                            + (guess != null
                                    ? " (did you mean '" + guess + "'?)"
                                    : " (tables: " + String.join(", ", tables.keySet()) + ")"));
        }
        return table;
    }

    private static final Duration HOUR = Duration.ofHours(1);

    private static Duration tile(YamlMapping m) {
        Duration tile = m.requiredDuration("tile", false);
        // Tiles are aligned to epoch seconds by the feature job; sub-second tiles cannot align.
        if (tile != null && tile.toMillis() % 1000 != 0) {
            m.report("tile", "must be whole seconds, got " + Durations.format(tile));
            return null;
        }
        // A tile keeps an id once, and copies of an id in different hours are different events
        // (DuplicateRule): a tile across an hour's boundary would drop one.
        if (tile != null && (tile.isZero() || HOUR.toSeconds() % tile.toSeconds() != 0)) {
            m.report(
                    "tile",
                    "must divide an hour (for example 1m, 5m or 1h), got "
                            + Durations.format(tile)
                            + ": a tile must not span the boundary of an hour, whose copies of an"
                            + " id are different events");
            return null;
        }
        return tile;
    }

    private static Duration ttl(YamlMapping m, Duration tile) {
        Duration ttl = m.requiredDuration("ttl", false);
        if (ttl != null && tile != null && !Durations.isMultipleOf(ttl, tile)) {
            m.report(
                    "ttl",
                    Durations.format(ttl) + " is not a multiple of tile " + Durations.format(tile));
            return null;
        }
        return ttl;
    }

    private static List<FeatureConfig> features(
            YamlMapping m, ParsedTable table, Duration tile, Duration ttl) {
        if (!m.has("features")) {
            m.report("features", "required");
            return List.of();
        }
        List<YamlMapping> items = m.mappings("features", FeatureParser.KEYS, true);
        if (items == null) {
            return List.of();
        }
        List<FeatureConfig> features = new ArrayList<>();
        Map<String, Integer> firstLine = new HashMap<>();
        for (YamlMapping item : items) {
            FeatureConfig feature =
                    FeatureParser.parse(item, table == null ? null : table.schema(), tile, ttl);
            features.add(feature);
            String name = feature != null ? feature.name() : null;
            Integer first = name == null ? null : firstLine.putIfAbsent(name, item.line("name"));
            if (first != null) {
                item.report(
                        "name",
                        "duplicate feature name '" + name + "' (first at line " + first + ")");
            }
        }
        return features;
    }
}
