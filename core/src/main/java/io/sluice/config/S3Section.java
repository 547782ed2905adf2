package io.sluice.config;

import io.sluice.config.S3Config.EnvCredentials;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads {@code storage.s3}. No message here repeats a value that might be a secret: a key pasted
 * where the name of its environment variable belongs would otherwise end up in a log.
 */
final class S3Section {
    /** {@code access_key} and {@code secret_key} are known only to refuse them with a reason. */
    static final List<String> KEYS =
            List.of(
                    "endpoint",
                    "region",
                    "path_style_access",
                    "access_key_env",
                    "secret_key_env",
                    "access_key",
                    "secret_key");

    private static final Pattern REGION = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");

    private S3Section() {}

    /** The block under {@code storage}, or null if it is invalid (reported). */
    static S3Config parse(YamlMapping storage) {
        YamlMapping m = storage.section("s3", KEYS);
        if (m == null) {
            return null;
        }
        boolean valid = refuseKeysInTheFile(m);
        Optional<URI> endpoint = endpoint(m);
        Optional<String> region = region(m);
        Boolean pathStyle = m.optionalBoolean("path_style_access", false);
        Optional<EnvCredentials> credentials = credentials(m);
        if (!valid || endpoint == null || region == null || pathStyle == null) {
            return null;
        }
        if (!pathStyle && endpoint.map(S3Section::hostCannotHaveBuckets).orElse(false)) {
            m.report(
                    "path_style_access",
                    "must be true when endpoint is an IP address or localhost (a bucket cannot"
                            + " be a sub-domain of it)");
            return null;
        }
        return credentials == null ? null : new S3Config(endpoint, region, pathStyle, credentials);
    }

    private static boolean refuseKeysInTheFile(YamlMapping m) {
        boolean valid = true;
        for (String key : List.of("access_key", "secret_key")) {
            if (m.has(key)) {
                m.report(
                        key,
                        "credentials do not belong in this file: put the key in an environment"
                                + " variable and name that variable with "
                                + key
                                + "_env");
                valid = false;
            }
        }
        return valid;
    }

    /** Empty if absent, null if invalid; otherwise {@code scheme://host[:port]}. */
    private static Optional<URI> endpoint(YamlMapping m) {
        if (!m.has("endpoint")) {
            return Optional.empty();
        }
        String text = m.optionalString("endpoint", null);
        if (text == null) {
            return null;
        }
        URI uri = YamlMapping.httpUri(text);
        if (uri != null && uri.getRawUserInfo() != null) {
            m.report(
                    "endpoint",
                    "must not hold credentials: name the environment variables that hold them"
                            + " with access_key_env and secret_key_env");
            return null;
        }
        String path = uri != null ? uri.getRawPath() : null;
        if (uri == null
                || !(path == null || path.isEmpty() || path.equals("/"))
                || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            m.report(
                    "endpoint",
                    "must be an http:// or https:// URL with a host, an optional port and no"
                            + " path, as in http://127.0.0.1:9000");
            return null;
        }
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        return Optional.of(URI.create(uri.getScheme() + "://" + uri.getHost() + port));
    }

    private static boolean hostCannotHaveBuckets(URI endpoint) {
        String host = endpoint.getHost();
        return host.equals("localhost") || host.startsWith("[") || IPV4.matcher(host).matches();
    }

    /** Empty if absent, null if invalid. */
    private static Optional<String> region(YamlMapping m) {
        if (!m.has("region")) {
            return Optional.empty();
        }
        String text = m.optionalString("region", null);
        if (text == null) {
            return null;
        }
        if (!REGION.matcher(text).matches()) {
            m.report("region", "must be a region name such as us-east-1, got '" + text + "'");
            return null;
        }
        return Optional.of(text);
    }

    /** Empty for the default provider chain, null if invalid. */
    private static Optional<EnvCredentials> credentials(YamlMapping m) {
        boolean access = m.has("access_key_env");
        boolean secret = m.has("secret_key_env");
        if (!access && !secret) {
            return Optional.empty();
        }
        if (access != secret) {
            m.report(
                    access ? "secret_key_env" : "access_key_env",
                    "required when " + (access ? "access_key_env" : "secret_key_env") + " is set");
            return null;
        }
        String accessEnv = variableName(m, "access_key_env");
        String secretEnv = variableName(m, "secret_key_env");
        return accessEnv == null || secretEnv == null
                ? null
                : Optional.of(new EnvCredentials(accessEnv, secretEnv));
    }

    /**
     * The name of a set environment variable, or null (reported). Neither the name nor the value is
     * repeated: a secret written here by mistake may well look like a variable's name.
     */
    private static String variableName(YamlMapping m, String key) {
        String name = m.optionalString(key, null);
        if (name == null) {
            return null;
        }
        if (!ENV_NAME.matcher(name).matches()) {
            m.report(
                    key,
                    "must be the name of an environment variable (letters, digits and '_', not"
                            + " starting with a digit), not the key itself");
            return null;
        }
        String value = m.ctx().env().variable(name);
        if (value == null || value.isEmpty()) {
            m.report(
                    key,
                    "names an environment variable that is "
                            + (value == null ? "not set" : "empty"));
            return null;
        }
        return name;
    }
}
