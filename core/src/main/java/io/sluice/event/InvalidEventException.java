package io.sluice.event;

/**
 * A record that fails parsing or validation. Checked, so that every decode path has to decide where
 * the record goes instead of letting an exception fail the job.
 */
public final class InvalidEventException extends Exception {

    private final Reason reason;

    public InvalidEventException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
