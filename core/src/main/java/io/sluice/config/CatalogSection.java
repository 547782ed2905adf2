package io.sluice.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code catalog} section. Absent, a {@code file:} lake gets the embedded catalog at
 * {@code <storage.root>/catalog.db}, and an object-store lake none (there is no local place that
 * every job shares; set {@code catalog.path} or a REST catalog).
 */
final class CatalogSection {

    static final List<String> KEYS =
            List.of(
                    "type",
                    "path",
                    "uri",
                    "warehouse",
                    "name",
                    "namespace",
                    "properties",
                    "snapshot_retention");

    private CatalogSection() {}

    /** Null when the section is invalid (reported); {@code storage} null if it was invalid. */
    static CatalogConfig parse(YamlMapping root, StorageConfig storage) {
        YamlMapping m = root.section("catalog", KEYS);
        if (m == null) {
            return null;
        }
        boolean local = storage == null || storage.isLocal();
        CatalogType defaultType =
                local || m.has("path")
                        ? CatalogType.SQLITE
                        : m.has("uri") ? CatalogType.REST : null;
        CatalogType type =
                m.optionalChoice(
                        "type",
                        CatalogType.class,
                        defaultType == null ? CatalogType.NONE : defaultType);
        String name = identifier(m, "name", CatalogConfig.DEFAULT_NAME);
        String namespace = identifier(m, "namespace", CatalogConfig.DEFAULT_NAMESPACE);
        Map<String, String> properties =
                m.stringMap(
                        "properties",
                        Map.of(
                                "uri", "set catalog.uri (or catalog.path) instead",
                                "warehouse", "set catalog.warehouse instead",
                                "catalog-impl", "set catalog.type instead",
                                "type", "set catalog.type instead"));
        Duration retention =
                m.optionalDuration(
                        "snapshot_retention", true, CatalogConfig.DEFAULT_SNAPSHOT_RETENTION);
        if (type == null
                || name == null
                || namespace == null
                || properties == null
                || retention == null) {
            return null;
        }
        CatalogConfig parsed =
                switch (type) {
                    case NONE -> none(m);
                    case SQLITE -> sqlite(m, storage, name, namespace, properties);
                    case REST -> rest(m, name, namespace, properties);
                };
        return parsed == null
                ? null
                : new CatalogConfig(
                        parsed.type(),
                        parsed.name(),
                        parsed.namespace(),
                        parsed.uri(),
                        parsed.warehouse(),
                        parsed.properties(),
                        retention);
    }

    private static CatalogConfig none(YamlMapping m) {
        boolean valid = true;
        for (String key : List.of("path", "uri", "warehouse", "properties")) {
            if (m.has(key)) {
                m.report(key, "not used when catalog.type is none");
                valid = false;
            }
        }
        return valid ? CatalogConfig.NONE : null;
    }

    private static CatalogConfig sqlite(
            YamlMapping m,
            StorageConfig storage,
            String name,
            String namespace,
            Map<String, String> properties) {
        boolean valid = true;
        for (String key : List.of("uri", "warehouse")) {
            if (m.has(key)) {
                m.report(key, "only used with catalog.type rest (the sqlite catalog takes path)");
                valid = false;
            }
        }
        URI file;
        if (m.has("path")) {
            String text = m.optionalString("path", null);
            if (text == null) {
                return null;
            }
            try {
                file = Locations.localFile(text, m.ctx().baseDir());
            } catch (IllegalArgumentException e) {
                m.report("path", e.getMessage());
                return null;
            }
        } else if (storage == null) {
            return null;
        } else if (!storage.isLocal()) {
            m.report(
                    "path",
                    "required for the sqlite catalog when storage.root is not a local file:"
                            + " location");
            return null;
        } else {
            file = Path.of(storage.rootUri()).resolve(CatalogConfig.DEFAULT_FILE).toUri();
        }
        return valid
                ? new CatalogConfig(
                        CatalogType.SQLITE,
                        name,
                        namespace,
                        file,
                        null,
                        properties,
                        CatalogConfig.DEFAULT_SNAPSHOT_RETENTION)
                : null;
    }

    private static CatalogConfig rest(
            YamlMapping m, String name, String namespace, Map<String, String> properties) {
        if (m.has("path")) {
            m.report("path", "only used with catalog.type sqlite (the rest catalog takes uri)");
            return null;
        }
        String text = m.requiredString("uri");
        if (text == null) {
            return null;
        }
        URI uri = YamlMapping.httpUri(text);
        if (uri == null) {
            m.report("uri", "must be the REST catalog's http:// or https:// endpoint");
            return null;
        }
        String warehouse = m.optionalString("warehouse", null);
        if (m.has("warehouse") && warehouse == null) {
            return null;
        }
        return new CatalogConfig(
                CatalogType.REST,
                name,
                namespace,
                uri,
                warehouse,
                properties,
                CatalogConfig.DEFAULT_SNAPSHOT_RETENTION);
    }

    private static String identifier(YamlMapping m, String key, String defaultValue) {
        String text = m.optionalString(key, defaultValue);
        if (text != null && !Names.isIdentifier(text)) {
            m.report(key, "'" + text + "' is not a valid name: " + Names.IDENTIFIER_RULE);
            return null;
        }
        return text;
    }
}
