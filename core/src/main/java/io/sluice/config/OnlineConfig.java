package io.sluice.config;

import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

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

    /** What a Redis store's URI must be, for messages about one that is not. */
    public static final String REDIS_URI_RULE =
            "must be a redis:// or rediss:// URI with a host, or a Redis Cluster's seed nodes as"
                    + " redis-cluster://host:port,host:port";

    /** {@code [user:password@]host:port[,host:port…]}: a Redis Cluster's seed nodes. */
    private static final Pattern CLUSTER_SEEDS =
            Pattern.compile("([^@]*@)?[^,@/:]+:[0-9]+(,[^,@/:]+:[0-9]+)*");

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

    /**
     * Whether {@code uri} names a Redis store: one server ({@code redis://} or {@code rediss://}
     * with a host) or a cluster's seed nodes ({@code redis-cluster://} or {@code
     * rediss-cluster://host:port,host:port}).
     */
    public static boolean isRedisUri(URI uri) {
        if (uri == null) {
            return false;
        }
        String scheme = uri.getScheme();
        if ("redis".equals(scheme) || "rediss".equals(scheme)) {
            return uri.getHost() != null;
        }
        return ("redis-cluster".equals(scheme) || "rediss-cluster".equals(scheme))
                && uri.getRawAuthority() != null
                && CLUSTER_SEEDS.matcher(uri.getRawAuthority()).matches();
    }

    /**
     * The Redis store a command-line option names, as {@code online.uri} would.
     *
     * @throws IllegalArgumentException naming {@code option} if {@code uri} is not a Redis store's
     *     URI (without repeating it, which may hold a password)
     */
    public static OnlineConfig redis(String option, URI uri) {
        if (!isRedisUri(uri)) {
            throw new IllegalArgumentException(option + ": " + REDIS_URI_RULE);
        }
        return new OnlineConfig(OnlineStoreType.REDIS, uri);
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
