package io.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the sections that describe infrastructure rather than data: {@code kafka}, {@code storage},
 * {@code online}, {@code checkpoint} and {@code compact} ({@code storage.s3} is {@link
 * S3Section}'s). Each method returns null when its section is invalid; the problem has been
 * reported.
 */
final class InfraSections {

    private static final Pattern HOST_PORT =
            Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9._-]+):(\\d{1,5})");

    private InfraSections() {}

    static KafkaConfig kafka(YamlMapping root) {
        if (!root.has("kafka")) {
            root.report("kafka", "required");
            return null;
        }
        YamlMapping m = root.section("kafka", List.of("bootstrap", "group", "properties"));
        if (m == null) {
            return null;
        }
        String bootstrap = bootstrap(m);
        String group = m.optionalString("group", "sluice");
        // Two spellings of one setting would leave it unclear which one the job uses.
        Map<String, String> properties =
                m.stringMap(
                        "properties",
                        Map.of(
                                "bootstrap.servers", "set kafka.bootstrap instead",
                                "group.id", "set kafka.group instead"));
        if (bootstrap == null || group == null || properties == null) {
            return null;
        }
        return new KafkaConfig(bootstrap, group, properties);
    }

    private static String bootstrap(YamlMapping m) {
        String bootstrap = m.requiredString("bootstrap");
        if (bootstrap == null) {
            return null;
        }
        StringBuilder normalized = new StringBuilder();
        for (String server : bootstrap.split(",", -1)) {
            Matcher hp = HOST_PORT.matcher(server.trim());
            int port = hp.matches() ? Integer.parseInt(hp.group(2)) : 0;
            if (port < 1 || port > 65535) {
                m.report(
                        "bootstrap",
                        "'"
                                + server.trim()
                                + "' is not host:port (list servers separated by commas)");
                return null;
            }
            normalized.append(normalized.length() == 0 ? "" : ",").append(server.trim());
        }
        return normalized.toString();
    }

    static StorageConfig storage(YamlMapping root) {
        if (!root.has("storage")) {
            root.report("storage", "required");
            return null;
        }
        YamlMapping m = root.section("storage", List.of("root", "s3"));
        if (m == null) {
            return null;
        }
        URI rootUri = storageRoot(m);
        // An s3 block beside a file: root is allowed: it also serves an s3: checkpoint.dir.
        S3Config s3 = m.has("s3") ? S3Section.parse(m) : null;
        if (rootUri == null || (m.has("s3") && s3 == null)) {
            return null;
        }
        return new StorageConfig(rootUri, Optional.ofNullable(s3));
    }

    private static URI storageRoot(YamlMapping m) {
        String text = m.requiredString("root");
        if (text == null) {
            return null;
        }
        try {
            return Locations.fileOrS3(text, m.ctx().baseDir());
        } catch (IllegalArgumentException e) {
            m.report("root", e.getMessage());
            return null;
        }
    }

    /** {@code storage} is needed for SQLite's default path; null if it was invalid. */
    static OnlineConfig online(YamlMapping root, StorageConfig storage) {
        YamlMapping m = root.section("online", List.of("store", "uri", "path"));
        if (m == null) {
            return null;
        }
        OnlineStoreType store =
                m.optionalChoice("store", OnlineStoreType.class, OnlineStoreType.SQLITE);
        if (store == null) {
            return null;
        }
        if (store == OnlineStoreType.SQLITE
                && storage != null
                && !storage.isLocal()
                && !m.has("path")
                && !m.has("uri")) {
            // No default next to an object-store lake; the jobs that do not serve features
            // (ingest, compact) need none, and the others say what to set when they open it.
            return OnlineConfig.unset(ONLINE_UNSET);
        }
        URI uri = store == OnlineStoreType.REDIS ? redisUri(m) : sqliteUri(m, storage);
        return uri == null ? null : new OnlineConfig(store, uri);
    }

    static final String ONLINE_UNSET =
            "online.path: required when storage.root is not a local file: location (set"
                    + " online.path, or online.store: redis with online.uri, or pass --online)";

    private static URI redisUri(YamlMapping m) {
        boolean valid = true;
        if (m.has("path")) {
            m.report("path", "only used with store sqlite");
            valid = false;
        }
        if (!m.has("uri")) {
            m.report("uri", "required when store is redis");
            return null;
        }
        String text = m.optionalString("uri", null);
        if (text == null) {
            return null;
        }
        URI uri = null;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            // Fall through: the message below does not echo the value, which may hold a password.
        }
        if (!OnlineConfig.isRedisUri(uri)) {
            m.report("uri", OnlineConfig.REDIS_URI_RULE);
            return null;
        }
        return valid ? uri : null;
    }

    private static URI sqliteUri(YamlMapping m, StorageConfig storage) {
        if (m.has("uri")) {
            m.report("uri", "only used with store redis");
            return null;
        }
        if (m.has("path")) {
            String text = m.optionalString("path", null);
            if (text == null) {
                return null;
            }
            try {
                return Locations.localFile(text, m.ctx().baseDir());
            } catch (IllegalArgumentException e) {
                m.report("path", e.getMessage());
                return null;
            }
        }
        if (storage == null) {
            return null;
        }
        return Path.of(storage.rootUri()).resolve("online.db").toUri();
    }

    static CheckpointConfig checkpoint(YamlMapping root) {
        YamlMapping m = root.section("checkpoint", List.of("interval", "dir"));
        if (m == null) {
            return null;
        }
        Duration interval = m.optionalDuration("interval", false, Duration.ofSeconds(10));
        URI dir = null;
        if (m.has("dir")) {
            String text = m.optionalString("dir", null);
            if (text == null) {
                return null;
            }
            try {
                dir = Locations.fileOrS3(text, m.ctx().baseDir());
            } catch (IllegalArgumentException e) {
                m.report("dir", e.getMessage());
                return null;
            }
        }
        return interval == null ? null : new CheckpointConfig(interval, Optional.ofNullable(dir));
    }

    static CompactConfig compact(YamlMapping root) {
        YamlMapping m = root.section("compact", List.of("memory_percent"));
        if (m == null) {
            return null;
        }
        Integer percent =
                m.optionalInt(
                        "memory_percent",
                        CompactConfig.MIN_MEMORY_PERCENT,
                        CompactConfig.MAX_MEMORY_PERCENT,
                        CompactConfig.DEFAULT_MEMORY_PERCENT);
        return percent == null ? null : new CompactConfig(percent);
    }
}
