package io.sluice.config;

/** The aggregations a feature can compute over its window. */
public enum Aggregation {
    COUNT,
    SUM,
    MIN,
    MAX,
    AVG,
    LAST
}
