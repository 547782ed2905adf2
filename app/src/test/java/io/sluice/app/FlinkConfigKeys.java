package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.ResourceManagerOptions;

/**
 * The keys a Flink 2.2 deployment reads from its configuration, taken from Flink's own classes
 * rather than written down here:
 *
 * <ul>
 *   <li>every {@link ConfigOption} constant of a {@code *Options} class in Flink's jars on the test
 *       class path (core, runtime, clients, streaming, state backends, table; not the connectors'
 *       and formats' options, which configure a source or sink, not the cluster) and in {@code
 *       flink-kubernetes} (the {@code kubernetes.*} options, from the jar the build copies to
 *       {@code target/flink-kubernetes}), with each option's deprecated and fallback keys;
 *   <li>the S3 file system plugin's keys: its own options, and {@code s3.X} (or {@code s3a.X},
 *       {@code fs.s3a.X}), which the plugin hands to Hadoop as {@code fs.s3a.X}, valid where Hadoop
 *       S3A declares {@code fs.s3a.X} (its {@code *Constants} classes) or it is per bucket. Both
 *       are read from the plugin jar the build copies to {@code target/plugins/s3-fs-hadoop};
 *   <li>the families of keys that no option declares, whose rest someone else reads: a metric,
 *       trace or event reporter's own settings ({@code metrics.reporter.<name>.*} and the like),
 *       the Kubernetes operator's per-deployment settings ({@code kubernetes.operator.*}, whose
 *       options are in the operator, not on Maven Central) and the containers' environment
 *       variables ({@code containerized.master.env.*}, {@code containerized.taskmanager.env.*}).
 * </ul>
 *
 * A value of an option's key must also parse as that option's type (a duration, an enum constant, a
 * number, ...), as Flink parses it.
 */
final class FlinkConfigKeys {

    /**
     * Classes whose constants are options, by Flink's naming convention for them. Not the
     * connectors' and formats' options (a Kafka source's {@code topic}, a format's {@code
     * avro.codec}): those configure one source, sink or table, never the cluster. The exception is
     * the source readers' own options ({@code source.reader.close.timeout}), which every source's
     * reader reads from the job's configuration.
     */
    private static final Pattern OPTIONS_CLASS =
            Pattern.compile(
                    "org/apache/flink/(?!.*shaded/)"
                            + "(?!connector/(?!base/source/reader/SourceReaderOptions)"
                            + "|streaming/connectors/|formats/)"
                            + "[^$]*Options\\.class");

    /** The S3 file system's classes that may declare options (today its factory does). */
    private static final Pattern S3_PLUGIN_CLASS =
            Pattern.compile("org/apache/flink/fs/[^$]*(Factory|Options)\\.class");

    private static final Pattern HADOOP_S3A_CONSTANTS =
            Pattern.compile("org/apache/hadoop/fs/s3a/([^$]*/)?[^/$]*Constants\\.class");

    private static final List<String> REPORTER_FAMILIES =
            List.of("metrics.reporter.", "traces.reporter.", "events.reporter.");

    private final Map<String, List<ConfigOption<?>>> options;
    private final List<String> families;
    private final List<String> s3Prefixes;
    private final String hadoopS3Prefix;
    private final Map<String, String> s3Mirrored;
    private final Set<String> hadoopS3Keys;

    private FlinkConfigKeys(
            Map<String, List<ConfigOption<?>>> options,
            List<String> families,
            List<String> s3Prefixes,
            String hadoopS3Prefix,
            Map<String, String> s3Mirrored,
            Set<String> hadoopS3Keys) {
        this.options = options;
        this.families = families;
        this.s3Prefixes = s3Prefixes;
        this.hadoopS3Prefix = hadoopS3Prefix;
        this.s3Mirrored = s3Mirrored;
        this.hadoopS3Keys = hadoopS3Keys;
    }

    private static FlinkConfigKeys loaded;

    /** The keys, read once per test JVM (a second or two: a few hundred classes are loaded). */
    static synchronized FlinkConfigKeys load() {
        if (loaded == null) {
            try {
                loaded = read();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return loaded;
    }

    /**
     * What is wrong with one {@code flinkConfiguration} entry for Flink 2.2, or empty if nothing
     * is.
     */
    Optional<String> problem(String key, String value) {
        List<ConfigOption<?>> declared = options.get(key);
        if (declared != null) {
            List<String> errors = new ArrayList<>();
            for (ConfigOption<?> option : declared) {
                Configuration config = new Configuration();
                config.setString(key, value);
                try {
                    config.get(option);
                    return Optional.empty();
                } catch (RuntimeException e) {
                    errors.add(e.getMessage());
                }
            }
            return Optional.of(
                    "value \""
                            + value
                            + "\" of "
                            + key
                            + " is not what Flink reads there: "
                            + errors);
        }
        for (String prefix : s3Prefixes) {
            if (key.startsWith(prefix)) {
                String hadoopKey = hadoopS3Prefix + key.substring(prefix.length());
                hadoopKey = s3Mirrored.getOrDefault(hadoopKey, hadoopKey);
                if (hadoopS3Keys.contains(hadoopKey)
                        || hadoopKey.startsWith(hadoopS3Prefix + "bucket.")) {
                    return Optional.empty();
                }
                return Optional.of(
                        key
                                + " is no Flink 2.2 option, and the S3 file system hands it to"
                                + " Hadoop as "
                                + hadoopKey
                                + ", which Hadoop S3A does not declare");
            }
        }
        for (String family : families) {
            if (key.startsWith(family) && key.length() > family.length()) {
                return Optional.empty();
            }
        }
        for (String family : REPORTER_FAMILIES) {
            // <family><reporter name>.<the reporter's own key>
            int dot = key.indexOf('.', family.length());
            if (key.startsWith(family) && dot > family.length() && dot < key.length() - 1) {
                return Optional.empty();
            }
        }
        return Optional.of(
                key
                        + " is no Flink 2.2 option (nor a deprecated key of one), no S3 file"
                        + " system key and in no family of keys read by others "
                        + families
                        + " "
                        + REPORTER_FAMILIES);
    }

    private static FlinkConfigKeys read() throws IOException, ReflectiveOperationException {
        Map<String, List<ConfigOption<?>>> options = new HashMap<>();
        ClassLoader test = FlinkConfigKeys.class.getClassLoader();
        int jars = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            String jar = path.getFileName().toString();
            if (jar.startsWith("flink-")
                    && !jar.contains("-tests")
                    && !jar.startsWith("flink-test-utils")
                    && Files.isRegularFile(path)) {
                collectOptions(path, OPTIONS_CLASS, test, options);
                jars++;
            }
        }
        assertThat(jars).as("Flink jars on the test class path").isGreaterThan(5);

        Path kubernetes = onlyJar(Path.of("target", "flink-kubernetes"));
        try (URLClassLoader loader = new URLClassLoader(new URL[] {url(kubernetes)}, test)) {
            collectOptions(kubernetes, OPTIONS_CLASS, loader, options);
        }

        // The S3 file system: its options (the Flink classes, over the test's Flink), then how it
        // hands s3.* to Hadoop, then what Hadoop S3A reads (Hadoop alone, as the plugin has it).
        Path s3 = onlyJar(Path.of(System.getProperty("sluice.plugins.dir"), "s3-fs-hadoop"));
        List<String> s3Prefixes;
        String hadoopPrefix;
        Map<String, String> mirrored = new HashMap<>();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {url(s3)}, test)) {
            collectOptions(s3, S3_PLUGIN_CLASS, loader, options);
            Class<?> factory = loader.loadClass("org.apache.flink.fs.s3hadoop.S3FileSystemFactory");
            Method create = factory.getDeclaredMethod("createHadoopConfigLoader");
            create.setAccessible(true);
            Object configLoader = create.invoke(null);
            s3Prefixes = List.of((String[]) field(configLoader, "flinkConfigPrefixes"));
            hadoopPrefix = (String) field(configLoader, "hadoopConfigPrefix");
            for (String[] pair : (String[][]) field(configLoader, "mirroredConfigKeys")) {
                mirrored.put(pair[0], pair[1]);
            }
        }
        Set<String> hadoopKeys = new HashSet<>();
        // Hadoop as the plugin has it, with SLF4J from outside, as Flink's plugin loader gives it.
        ClassLoader slf4j =
                new ClassLoader(ClassLoader.getPlatformClassLoader()) {
                    @Override
                    protected Class<?> findClass(String name) throws ClassNotFoundException {
                        if (name.startsWith("org.slf4j.")) {
                            return test.loadClass(name);
                        }
                        throw new ClassNotFoundException(name);
                    }
                };
        try (URLClassLoader hadoop = new URLClassLoader(new URL[] {url(s3)}, slf4j);
                JarFile jar = new JarFile(s3.toFile())) {
            for (String name :
                    jar.stream()
                            .map(e -> e.getName())
                            .filter(n -> HADOOP_S3A_CONSTANTS.matcher(n).matches())
                            .toList()) {
                Class<?> constants = Class.forName(className(name), true, hadoop);
                for (Field f : constants.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                        f.setAccessible(true);
                        String value = (String) f.get(null);
                        if (value != null && value.startsWith(hadoopPrefix)) {
                            hadoopKeys.add(value);
                        }
                    }
                }
            }
        }
        assertThat(hadoopKeys).as("Hadoop S3A's keys").contains("fs.s3a.endpoint");

        List<String> families =
                List.of(
                        "kubernetes.operator.",
                        ResourceManagerOptions.CONTAINERIZED_MASTER_ENV_PREFIX,
                        ResourceManagerOptions.CONTAINERIZED_TASK_MANAGER_ENV_PREFIX);
        return new FlinkConfigKeys(
                options, families, s3Prefixes, hadoopPrefix, mirrored, hadoopKeys);
    }

    /** The option constants of the jar's classes whose names match, loaded by {@code loader}. */
    private static void collectOptions(
            Path jarPath,
            Pattern classes,
            ClassLoader loader,
            Map<String, List<ConfigOption<?>>> options)
            throws IOException {
        List<String> names;
        try (JarFile jar = new JarFile(jarPath.toFile())) {
            names =
                    jar.stream()
                            .map(e -> e.getName())
                            .filter(n -> classes.matcher(n).matches())
                            .toList();
        }
        for (String name : names) {
            Class<?> type;
            try {
                type = Class.forName(className(name), true, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                continue; // needs a class this class path lacks: none of its options can be read
            }
            for (Field f : type.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())
                        && ConfigOption.class.isAssignableFrom(f.getType())
                        && f.trySetAccessible()) {
                    try {
                        ConfigOption<?> option = (ConfigOption<?>) f.get(null);
                        if (option == null) {
                            continue;
                        }
                        add(options, option.key(), option);
                        for (FallbackKey fallback : option.fallbackKeys()) {
                            add(options, fallback.getKey(), option);
                        }
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
    }

    private static void add(
            Map<String, List<ConfigOption<?>>> options, String key, ConfigOption<?> option) {
        List<ConfigOption<?>> list = options.computeIfAbsent(key, k -> new ArrayList<>());
        if (!list.contains(option)) {
            list.add(option);
        }
    }

    private static String className(String entry) {
        return entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    private static Path onlyJar(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> jars = files.filter(f -> f.toString().endsWith(".jar")).toList();
            assertThat(jars).as("the jar the build copies to %s", dir).hasSize(1);
            return jars.get(0);
        }
    }

    private static URL url(Path path) throws IOException {
        return path.toUri().toURL();
    }
}
