package io.sluice.features.training;

/**
 * A training-set request refused because some of its rows need events the warehouse does not hold
 * whole: a time later than the end of the last complete, compacted hour of a view's source table,
 * or a window that needs an hour still open or not compacted. Its message names how many rows, the
 * first few (spine row, entity, time) and the hours, and why each is not whole.
 */
public final class IncompleteDataException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final long rows;

    IncompleteDataException(String message, long rows) {
        super(message);
        this.rows = rows;
    }

    /** How many spine rows could not be answered from whole data. */
    public long rows() {
        return rows;
    }
}
