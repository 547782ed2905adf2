package io.sluice.config;

/**
 * Where the Iceberg metadata of the lake's tables is registered: Iceberg's JDBC catalog on a SQLite
 * file for one machine, an Iceberg REST catalog when engines share it, or none.
 */
public enum CatalogType {
    SQLITE,
    REST,
    NONE
}
