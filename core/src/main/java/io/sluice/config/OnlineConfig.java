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
public record OnlineConfig(OnlineStoreType store, URI uri) implements Serializable {
    public OnlineConfig {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(uri, "uri");
    }

    /** The SQLite database file; only meaningful when {@link #store()} is SQLITE. */
    public Path sqlitePath() {
        if (store != OnlineStoreType.SQLITE) {
            throw new IllegalStateException("online store is " + store + ", not SQLITE");
        }
        return Path.of(uri);
    }
}
