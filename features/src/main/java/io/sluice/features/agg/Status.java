package io.sluice.features.agg;

/** Why a feature value is what it is. */
public enum Status {
    /** The value was computed from at least one event (count and sum also from none: 0). */
    OK,
    /** No event with a value in the window: min, max, avg and last are null. */
    EMPTY_WINDOW,
    /** The time asked for is older than the view's ttl: the store no longer holds its tiles. */
    OUT_OF_RETENTION,
    /**
     * The entity has no event in the view's retention before the time asked for ({@code floor_s(t)
     * − ttl ≤ x.ts < t}): it is unknown there, so every feature of the view is null, counts too.
     */
    NOT_FOUND
}
