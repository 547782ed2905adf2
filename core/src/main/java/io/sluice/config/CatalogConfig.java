package io.sluice.config;

import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The Iceberg catalog that every warehouse table is registered in, so engines read the lake as
 * consistent, versioned tables (the {@code catalog} section).
 *
 * @param type the catalog's kind; {@link CatalogType#NONE} keeps the lake Hive-layout only
 * @param name the catalog's name, as engines are told to call it
 * @param namespace the namespace holding one table per warehouse table
 * @param uri the SQLite file ({@code file:}) or the REST catalog's {@code http(s)://} endpoint;
 *     null for none
 * @param warehouse the REST catalog's {@code warehouse} property, or null
 * @param properties further Iceberg catalog properties (credentials, tokens, io settings), passed
 *     as they are
 */
public record CatalogConfig(
        CatalogType type,
        String name,
        String namespace,
        URI uri,
        String warehouse,
        Map<String, String> properties,
        Duration snapshotRetention)
        implements Serializable {

    public static final Duration DEFAULT_SNAPSHOT_RETENTION = Duration.ofDays(7);

    public static final String DEFAULT_NAME = "sluice";
    public static final String DEFAULT_NAMESPACE = "sluice";
    public static final String DEFAULT_FILE = "catalog.db";

    /** No catalog: the lake is only a Hive layout. */
    public static final CatalogConfig NONE =
            new CatalogConfig(
                    CatalogType.NONE,
                    DEFAULT_NAME,
                    DEFAULT_NAMESPACE,
                    null,
                    null,
                    Map.of(),
                    DEFAULT_SNAPSHOT_RETENTION);

    public CatalogConfig {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        properties = Map.copyOf(properties);
        Objects.requireNonNull(snapshotRetention, "snapshotRetention");
        if (type != CatalogType.NONE) {
            Objects.requireNonNull(uri, "uri");
        }
    }

    /** The embedded catalog: Iceberg's JDBC catalog on the SQLite file {@code file}. */
    public static CatalogConfig sqlite(Path file) {
        return new CatalogConfig(
                CatalogType.SQLITE,
                DEFAULT_NAME,
                DEFAULT_NAMESPACE,
                file.toAbsolutePath().normalize().toUri(),
                null,
                Map.of(),
                DEFAULT_SNAPSHOT_RETENTION);
    }

    /** Where the catalog is, for messages: its SQLite file or REST endpoint. */
    public String sqlitePathOrUri() {
        return type == CatalogType.SQLITE ? sqlitePath().toString() : String.valueOf(uri);
    }

    /** Whether the lake's tables are registered in a catalog. */
    public boolean isEnabled() {
        return type != CatalogType.NONE;
    }

    /** The SQLite file of the embedded catalog. */
    public Path sqlitePath() {
        if (type != CatalogType.SQLITE) {
            throw new IllegalStateException("catalog type is " + type + ", not SQLITE");
        }
        return Path.of(uri);
    }

    /**
     * The properties to initialize Iceberg's catalog with, for a lake whose warehouse zone is at
     * {@code warehouseRoot} ({@code <storage.root>/warehouse}).
     */
    public Map<String, String> icebergProperties(URI warehouseRoot) {
        Map<String, String> props = new LinkedHashMap<>(properties);
        // Metadata files through the lake's own file system, unless the user names another.
        props.putIfAbsent("io-impl", io.sluice.catalog.LakeFileIO.class.getName());
        switch (type) {
            case SQLITE -> {
                props.put("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
                props.put("uri", "jdbc:sqlite:" + sqlitePath());
                props.putIfAbsent("warehouse", warehouseRoot + "/_iceberg");
            }
            case REST -> {
                props.put("catalog-impl", "org.apache.iceberg.rest.RESTCatalog");
                props.put("uri", uri.toString());
                if (warehouse != null) {
                    props.put("warehouse", warehouse);
                }
            }
            case NONE -> throw new IllegalStateException("no catalog is configured");
        }
        return props;
    }
}
