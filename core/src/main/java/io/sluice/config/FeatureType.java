package io.sluice.config;

/** Value types a feature may be served as; deliberately the few every model runtime reads. */
public enum FeatureType {
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    STRING
}
