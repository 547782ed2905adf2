package io.sluice.serving;

/** A request the server refuses, with the HTTP status and a message that names the field. */
public final class BadRequest extends RuntimeException {

    private final int status;

    public BadRequest(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public BadRequest(String message) {
        this(400, message);
    }

    public int status() {
        return status;
    }
}
