package io.sluice.lake;

import io.sluice.config.S3Config;
import io.sluice.config.StorageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.DefaultPluginManager;
import org.apache.flink.core.plugin.PluginDescriptor;
import org.apache.flink.core.plugin.PluginManager;

/**
 * The one place where Sluice sets up Flink's {@link FileSystem} for the lake, so that every reader
 * and writer of the lake (Flink's file sink, Flink's sources, {@link LakeFiles}) reaches an {@code
 * s3:} root with the settings of {@code storage.s3}.
 *
 * <p>Flink only does this by itself in its cluster entry points: a MiniCluster, a local environment
 * and a plain CLI process never call {@link FileSystem#initialize}, so an {@code s3:} path there
 * would meet an S3 file system without endpoint or credentials, or none at all. Call {@link
 * #initialize(StorageConfig)} once, before building a job or touching the lake, in every process
 * that runs Flink locally or reads the lake itself. Do not call it inside a job submitted to a
 * Flink cluster: there the cluster's own plugins and {@code s3.*} settings apply, and this would
 * replace them in that one JVM.
 *
 * <p>For a {@code file:} root without an {@code s3} block it does nothing: Flink's local file
 * system needs no setup. Otherwise it passes the {@code s3.*} keys below to Flink, with the S3 file
 * system of {@code org.apache.flink:flink-s3-fs-hadoop} loaded as a plugin, in a class loader of
 * its own. That jar brings Hadoop 3.3 and AWS SDK v1 classes unrelocated, which clash with the
 * Hadoop 3.4 client that parquet-hadoop uses on Sluice's own class path; it also has the
 * recoverable writer (multipart uploads committed on checkpoint) that an exactly-once file sink
 * needs.
 *
 * <p>The plugin is looked up in {@code <plugins>/s3-fs-hadoop/*.jar}, where {@code <plugins>} is,
 * in this order:
 *
 * <ol>
 *   <li>the system property {@value #PLUGINS_DIR_PROPERTY};
 *   <li>the environment variable {@value #PLUGINS_DIR_ENV};
 *   <li>{@code plugins} next to the jar (or classes directory) this class was loaded from: for
 *       {@code ./sluice}, whose code is {@code app/target/sluice.jar}, that is {@code
 *       app/target/plugins}, where {@code ./mvnw package} copies the plugin.
 * </ol>
 *
 * <p>Build modules copy the plugin to {@code target/plugins/s3-fs-hadoop/} before their tests run,
 * and their tests set the system property to {@code target/plugins} (see the parent POM).
 *
 * <p>S3 settings, as Flink keys (the plugin passes {@code s3.*} on as Hadoop's {@code fs.s3a.*}):
 * {@code s3.endpoint}, {@code s3.endpoint.region}, {@code s3.path.style.access}, {@code
 * s3.directory.marker.retention: keep}, and either {@code s3.access-key}/{@code s3.secret-key} read
 * from the environment variables that {@code storage.s3.access_key_env}/{@code secret_key_env}
 * name, with only those keys as credentials, or else the AWS SDK's default provider chain. Secrets
 * are only ever held in the Flink configuration handed to the plugin; nothing here logs or prints
 * them.
 */
public final class LakeFileSystem {

    /** System property naming the plugins directory. */
    public static final String PLUGINS_DIR_PROPERTY = "sluice.plugins.dir";

    /** Environment variable naming the plugins directory (when the property is not set). */
    public static final String PLUGINS_DIR_ENV = "SLUICE_PLUGINS_DIR";

    /** The plugin's directory under the plugins directory, and its plugin id. */
    public static final String S3_PLUGIN = "s3-fs-hadoop";

    /**
     * S3A's directory-marker policy: {@code keep}, Hadoop 3.4's default, instead of 3.3's {@code
     * delete}, under which every file written is followed by a request deleting any markers of its
     * parent prefixes. Readers of the lake are not affected; Hadoop clients older than 3.2.2 or
     * 2.10.2 could mistake a kept marker for an empty directory.
     */
    static final String MARKER_RETENTION = "s3.directory.marker.retention";

    /** Hadoop's S3A provider that uses exactly the configured key pair. */
    static final String KEY_PAIR_PROVIDER = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider";

    /**
     * The AWS SDK v1 default chain, as bundled in the plugin: environment variables, system
     * properties, web identity (a Kubernetes service account), profile files, container and
     * instance roles. Hadoop's own default list has no web identity.
     */
    static final String DEFAULT_CHAIN = "com.amazonaws.auth.DefaultAWSCredentialsProviderChain";

    /**
     * One plugin class loader per directory: loading a 30 MB jar again for each call would leak.
     */
    private static final Map<Path, PluginManager> PLUGIN_MANAGERS = new HashMap<>();

    private static Map<String, String> appliedOptions;
    private static Path appliedPluginsDir;

    private static boolean clusterManaged;

    private LakeFileSystem() {}

    /**
     * Leaves the file systems to the Flink cluster this process belongs to: its job and task
     * managers set them up from their own configuration ({@code s3.*} keys, the plugins it
     * enables), so {@link #initialize} does nothing from then on, and {@code storage.s3} is not
     * applied (the deployment's {@code flinkConfiguration} says the same there). Called by the
     * entry point of Flink's application mode.
     */
    public static synchronized void leaveToCluster() {
        clusterManaged = true;
    }

    /** {@link #initialize(StorageConfig, Map)} with the process environment. */
    public static void initialize(StorageConfig storage) {
        initialize(storage, System.getenv());
    }

    /**
     * Sets up Flink's file systems for {@code storage}; a no-op for a {@code file:} root without an
     * {@code s3} block, and when called again with the same settings.
     *
     * @param env where the credentials' environment variables and {@value #PLUGINS_DIR_ENV} are
     *     read
     * @throws IllegalStateException naming the setting to fix if a credential variable is unset or
     *     the S3 plugin is missing
     */
    public static synchronized void initialize(StorageConfig storage, Map<String, String> env) {
        if (!storage.usesS3() || clusterManaged) {
            return;
        }
        Map<String, String> options = s3Options(storage.s3OrDefaults(), env);
        Path pluginsDir = pluginsDir(env);
        if (options.equals(appliedOptions) && pluginsDir.equals(appliedPluginsDir)) {
            return;
        }
        Configuration conf = Configuration.fromMap(options);
        PluginManager plugins = PLUGIN_MANAGERS.get(pluginsDir);
        if (plugins == null) {
            plugins = s3PluginManager(pluginsDir, conf);
            PLUGIN_MANAGERS.put(pluginsDir, plugins);
        }
        // SDK v1 warns of its end of support on first use; the plugin's choice, not the user's.
        if (System.getProperty("aws.java.v1.disableDeprecationAnnouncement") == null) {
            System.setProperty("aws.java.v1.disableDeprecationAnnouncement", "true");
        }
        FileSystem.initialize(conf, plugins);
        appliedOptions = options;
        appliedPluginsDir = pluginsDir;
    }

    /**
     * The Flink configuration for {@code s3}; it holds the secret key when the block names
     * environment variables, so it must not be logged.
     */
    static Map<String, String> s3Options(S3Config s3, Map<String, String> env) {
        Map<String, String> options = new LinkedHashMap<>();
        s3.endpoint().ifPresent(endpoint -> options.put("s3.endpoint", endpoint.toString()));
        s3.region().ifPresent(region -> options.put("s3.endpoint.region", region));
        options.put("s3.path.style.access", Boolean.toString(s3.pathStyleAccess()));
        options.put(MARKER_RETENTION, "keep");
        if (s3.credentials().isPresent()) {
            S3Config.EnvCredentials credentials = s3.credentials().get();
            options.put("s3.aws.credentials.provider", KEY_PAIR_PROVIDER);
            options.put(
                    "s3.access-key",
                    variable(env, credentials.accessKeyEnv(), "storage.s3.access_key_env"));
            options.put(
                    "s3.secret-key",
                    variable(env, credentials.secretKeyEnv(), "storage.s3.secret_key_env"));
        } else {
            options.put("s3.aws.credentials.provider", DEFAULT_CHAIN);
        }
        return options;
    }

    private static String variable(Map<String, String> env, String name, String key) {
        String value = env.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException(
                    key
                            + ": environment variable '"
                            + name
                            + "' is "
                            + (value == null ? "not set" : "empty")
                            + " in this process");
        }
        return value;
    }

    /** Where the plugins are looked for; see the class comment for the order. */
    static Path pluginsDir(Map<String, String> env) {
        String property = System.getProperty(PLUGINS_DIR_PROPERTY);
        if (property != null && !property.isBlank()) {
            return Path.of(property).toAbsolutePath().normalize();
        }
        String variable = env.get(PLUGINS_DIR_ENV);
        if (variable != null && !variable.isBlank()) {
            return Path.of(variable).toAbsolutePath().normalize();
        }
        return codeLocation().resolve("plugins");
    }

    /** The directory of this class's jar, or the parent of its classes directory. */
    private static Path codeLocation() {
        CodeSource source = LakeFileSystem.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return Path.of("").toAbsolutePath();
        }
        try {
            Path location = Path.of(source.getLocation().toURI()).toAbsolutePath();
            return location.getParent() == null ? location : location.getParent();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Path.of("").toAbsolutePath();
        }
    }

    /** A plugin manager with the one S3 plugin found under {@code pluginsDir}. */
    static PluginManager s3PluginManager(Path pluginsDir, Configuration conf) {
        Path dir = pluginsDir.resolve(S3_PLUGIN);
        URL[] jars;
        try (Stream<Path> files = Files.isDirectory(dir) ? Files.list(dir) : Stream.empty()) {
            jars =
                    files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                            .sorted()
                            .map(LakeFileSystem::url)
                            .toArray(URL[]::new);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        if (jars.length == 0) {
            throw new IllegalStateException(
                    "an s3: lake needs Flink's S3 file system plugin"
                            + " (org.apache.flink:flink-s3-fs-hadoop), but there is no jar in "
                            + dir
                            + ": './mvnw package' puts it in app/target/plugins; otherwise set"
                            + " -D"
                            + PLUGINS_DIR_PROPERTY
                            + " or "
                            + PLUGINS_DIR_ENV
                            + " to a directory that holds "
                            + S3_PLUGIN
                            + "/<the jar>");
        }
        return new DefaultPluginManager(
                List.of(new PluginDescriptor(S3_PLUGIN, jars, new String[0])),
                CoreOptions.getPluginParentFirstLoaderPatterns(conf));
    }

    private static URL url(Path file) {
        try {
            return file.toUri().toURL();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
