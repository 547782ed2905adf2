package io.sluice.config;

import java.net.URI;
import java.util.Objects;

/**
 * Where the lake lives. The root is always absolute so that jobs started from different working
 * directories agree on the same files.
 *
 * @param rootUri absolute {@code file:} or {@code s3:} URI, without a trailing slash
 */
public record StorageConfig(URI rootUri) {
    public StorageConfig {
        Objects.requireNonNull(rootUri, "rootUri");
    }

    /** {@code <root>/<zone>/<table>}, e.g. zone {@code raw} for the landing zone. */
    public URI tablePath(String zone, String table) {
        return Locations.child(rootUri, zone, table);
    }

    /** True when the lake is on the local file system, where local defaults make sense. */
    public boolean isLocal() {
        return "file".equals(rootUri.getScheme());
    }
}
