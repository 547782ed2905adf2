package io.sluice.config;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the lake lives. The root is always absolute so that jobs started from different working
 * directories agree on the same files.
 *
 * @param rootUri absolute {@code file:} or {@code s3:} URI, without a trailing slash
 * @param s3 the {@code storage.s3} block, if the file has one: how to reach the object store of an
 *     {@code s3:} root (or of an {@code s3:} checkpoint directory)
 */
public record StorageConfig(URI rootUri, Optional<S3Config> s3) {
    public StorageConfig {
        Objects.requireNonNull(rootUri, "rootUri");
        Objects.requireNonNull(s3, "s3");
    }

    /** A root without an {@code s3} block. */
    public StorageConfig(URI rootUri) {
        this(rootUri, Optional.empty());
    }

    /** {@code <root>/<zone>/<table>}, e.g. zone {@code raw} for the landing zone. */
    public URI tablePath(String zone, String table) {
        return Locations.child(rootUri, zone, table);
    }

    /** True when the lake is on the local file system, where local defaults make sense. */
    public boolean isLocal() {
        return "file".equals(rootUri.getScheme());
    }

    /** True when S3 must be set up: the root is an {@code s3:} location or the block is there. */
    public boolean usesS3() {
        return "s3".equals(rootUri.getScheme()) || s3.isPresent();
    }

    /** The {@code s3} block, or {@link S3Config#DEFAULTS} (AWS and its provider chain). */
    public S3Config s3OrDefaults() {
        return s3.orElse(S3Config.DEFAULTS);
    }
}
