package io.sluice.serving;

/**
 * What one request may ask of the server; larger requests are refused before the store is read.
 *
 * @param maxEntities entity keys per request
 * @param maxFeatures features per request
 * @param maxBodyBytes request body size; larger bodies get 413
 * @param idleTimeoutSeconds a connection that sends or receives nothing for this long is closed
 * @param requestTimeoutSeconds a request whose body has not all arrived this long after its headers
 *     gets 408, and its connection is closed: a client that sends a byte now and then is never
 *     idle, yet would hold the request open for ever
 */
public record Limits(
        int maxEntities,
        int maxFeatures,
        long maxBodyBytes,
        int idleTimeoutSeconds,
        int requestTimeoutSeconds) {

    /** 1,000 entities, 200 features, 1 MiB bodies, 30 s idle, 10 s to send a request. */
    public static final Limits DEFAULT = new Limits(1_000, 200, 1 << 20, 30, 10);

    public Limits {
        if (maxEntities < 1
                || maxFeatures < 1
                || maxBodyBytes < 1
                || idleTimeoutSeconds < 1
                || requestTimeoutSeconds < 1) {
            throw new IllegalArgumentException("every limit must be at least 1");
        }
    }
}
