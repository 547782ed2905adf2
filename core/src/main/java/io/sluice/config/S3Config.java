package io.sluice.config;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * How Sluice reaches an S3 or S3-compatible object store: {@code storage.s3} in sluice.yaml. It
 * holds no secret, so it can be printed and compared freely: credentials come either from the
 * standard AWS provider chain or from two environment variables that this record only names.
 *
 * @param endpoint the service's base URL ({@code http} or {@code https}, a host and an optional
 *     port); empty means AWS's own endpoint
 * @param region the signing region, such as {@code us-east-1}; empty lets the client work it out
 * @param pathStyleAccess address objects as {@code endpoint/bucket/key} instead of {@code
 *     bucket.endpoint/key}: most S3-compatible servers need it, and so does an endpoint that is an
 *     IP address or {@code localhost}
 * @param credentials the environment variables that hold the access key and the secret key; empty
 *     means the AWS default provider chain (environment, system properties, web identity, profile
 *     files, container and instance roles)
 */
public record S3Config(
        Optional<URI> endpoint,
        Optional<String> region,
        boolean pathStyleAccess,
        Optional<EnvCredentials> credentials) {

    /** AWS itself, credentials from the default provider chain: what an absent block means. */
    public static final S3Config DEFAULTS =
            new S3Config(Optional.empty(), Optional.empty(), false, Optional.empty());

    public S3Config {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(credentials, "credentials");
    }

    /**
     * The names of the environment variables that hold an access key pair ({@code
     * storage.s3.access_key_env} and {@code storage.s3.secret_key_env}), never the keys.
     */
    public record EnvCredentials(String accessKeyEnv, String secretKeyEnv) {
        public EnvCredentials {
            Objects.requireNonNull(accessKeyEnv, "accessKeyEnv");
            Objects.requireNonNull(secretKeyEnv, "secretKeyEnv");
        }
    }
}
