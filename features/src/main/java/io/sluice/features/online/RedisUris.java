package io.sluice.features.online;

import io.lettuce.core.RedisURI;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The online store's Redis URIs: one server ({@code redis[s]://…}, Lettuce's own syntax) or a
 * cluster's seed nodes ({@code redis[s]-cluster://host:port,host:port,…}), which Lettuce has no URI
 * for.
 */
final class RedisUris {

    private RedisUris() {}

    /** {@code uri} without its password. */
    static String redacted(URI uri) {
        return uri.getRawUserInfo() == null
                ? uri.toString()
                : uri.toString().replace(uri.getRawUserInfo() + "@", "***@");
    }

    /** Whether {@code uri} names a cluster's seed nodes. */
    static boolean isCluster(URI uri) {
        String scheme = uri.getScheme();
        return "redis-cluster".equals(scheme) || "rediss-cluster".equals(scheme);
    }

    /** The seed nodes of {@code redis[s]-cluster://[user:password@]host:port,host:port,…}. */
    static List<RedisURI> seeds(URI uri) {
        String scheme = uri.getScheme().startsWith("rediss") ? "rediss://" : "redis://";
        String authority = uri.getRawAuthority();
        String credentials = "";
        int at = authority == null ? -1 : authority.lastIndexOf('@');
        if (at >= 0) {
            credentials = authority.substring(0, at + 1);
            authority = authority.substring(at + 1);
        }
        List<RedisURI> seeds = new ArrayList<>();
        if (authority != null) {
            for (String node : authority.split(",")) {
                if (!node.isBlank()) {
                    seeds.add(RedisURI.create(scheme + credentials + node.strip()));
                }
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException(
                    "a Redis Cluster URI names its seed nodes, like"
                            + " redis-cluster://10.0.0.1:6379,10.0.0.2:6379");
        }
        return seeds;
    }
}
