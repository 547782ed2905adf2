package io.sluice.features.agg;

/** Why a feature value is what it is. */
public enum Status {
    /** The value was computed from at least one event (count and sum also from none: 0). */
    OK,
    /** No event with a value in the window: min, max, avg and last are null. */
    EMPTY_WINDOW,
    /** The time asked for is older than the view's ttl: the store no longer holds its tiles. */
    OUT_OF_RETENTION
}
