package io.sluice.features.agg;

/**
 * One feature's value for an entity at a time.
 *
 * @param value the value in the feature's declared type ({@link Integer}, {@link Long}, {@link
 *     Float}, {@link Double} or {@link String}), or null
 * @param status why the value is what it is
 * @param eventTime the time of the latest event the value was computed from (epoch millis), or -1
 *     when there was none
 */
public record FeatureValue(Object value, Status status, long eventTime) {}
