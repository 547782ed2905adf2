package io.sluice.features.agg;

/**
 * One accepted event as tiles keep it: its time, its id, and the values of the view's source
 * fields, normalised to {@link Long} (int and long fields), {@link Double} (float and double) or
 * {@link String} (string and enum), or null.
 */
public record EventEntry(long ts, String id, Object[] values) {}
