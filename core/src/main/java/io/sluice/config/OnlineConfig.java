package io.sluice.config;

import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where served feature values are written. One URI covers both backends, so callers switch on
 * {@link #store()} once instead of checking which of several optional fields is set.
 *
 * @param store the backend
 * @param uri {@code redis://} or {@code rediss://} for one Redis server, {@code redis-cluster://}
 *     or {@code rediss-cluster://} with comma-separated {@code host:port} seed nodes for a Redis
 *     (or Valkey) Cluster; an absolute {@code file:} URI of the database file for SQLite
 */
public record OnlineConfig(OnlineStoreType store, URI uri, String unsetReason)
        implements Serializable {
    public OnlineConfig {
        Objects.requireNonNull(store, "store");
        if (uri == null && unsetReason == null) {
            throw new NullPointerException("uri");
        }
    }

    public OnlineConfig(OnlineStoreType store, URI uri) {
        this(store, uri, null);
    }

    /**
     * No online store: an object-store lake's config without one, which commands that never open it
     * (ingest, compact) accept; the others fail with {@code reason}, naming what to set.
     */
    public static OnlineConfig unset(String reason) {
        return new OnlineConfig(OnlineStoreType.SQLITE, null, reason);
    }

    /** Whether a store is configured. */
    public boolean isSet() {
        return uri != null;
    }

    /**
     * The store's URI.
     *
     * @throws IllegalArgumentException naming the key to set if no store is configured
     */
    @Override
    public URI uri() {
        if (uri == null) {
            throw new IllegalArgumentException(unsetReason);
        }
        return uri;
    }

    /** The SQLite database file; only meaningful when {@link #store()} is SQLITE. */
    public Path sqlitePath() {
        if (store != OnlineStoreType.SQLITE) {
            throw new IllegalStateException("online store is " + store + ", not SQLITE");
        }
        return Path.of(uri());
    }
}
