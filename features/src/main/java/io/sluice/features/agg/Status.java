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
    NOT_FOUND,
    /**
     * The data the value needs is not all there yet, so no value is given rather than one computed
     * from part of it. In a training set (when asked to mark such rows rather than refuse them):
     * the time asked for is later than the warehouse covers for the view's source table (the end of
     * its last complete, compacted hour), or its window, or the view's retention that decides
     * {@link #NOT_FOUND}, needs an hour whose landing is still open or that is not compacted from
     * its current landing. Online, in a read at a chosen time: the features job has not written the
     * view through that time ({@link io.sluice.features.online.OnlineStore#writtenThrough}). Every
     * feature of the view is null.
     */
    INCOMPLETE
}
