package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shaded job jar's native libraries: each of the platforms Sluice supports has the SQLite,
 * Snappy, ZSTD and JNA libraries its loaders look for, and no other platform has any (the shade
 * plugin's excludes in the app's pom). It reads the jar the build made ({@code sluice.job.jar}).
 */
class JobJarITCase {

    /** Supported platform, as each library's loader names it in its resource path. */
    private record Platform(String sqlite, String snappy, String zstd, String jna) {}

    private static final Map<String, Platform> SUPPORTED =
            Map.of(
                    "Linux x86-64",
                    new Platform("Linux/x86_64", "Linux/x86_64", "linux/amd64", "linux-x86-64"),
                    "Linux ARM64",
                    new Platform(
                            "Linux/aarch64", "Linux/aarch64", "linux/aarch64", "linux-aarch64"),
                    "macOS x86-64",
                    new Platform("Mac/x86_64", "Mac/x86_64", "darwin/x86_64", "darwin-x86-64"),
                    "macOS ARM64",
                    new Platform("Mac/aarch64", "Mac/aarch64", "darwin/aarch64", "darwin-aarch64"),
                    "Windows x86-64",
                    new Platform("Windows/x86_64", "Windows/x86_64", "win/amd64", "win32-x86-64"),
                    "Windows ARM64",
                    new Platform(
                            "Windows/aarch64", "Windows/aarch64", "win/aarch64", "win32-aarch64"));

    /** SQLite alone also ships for musl (Alpine-based images). */
    private static final List<String> SQLITE_MUSL =
            List.of("Linux-Musl/x86_64", "Linux-Musl/aarch64");

    private static final Pattern NATIVE = Pattern.compile(".*\\.(so|dll|dylib|jnilib|a)$");

    @Test
    void carriesNativeLibrariesForTheSupportedPlatformsOnly() throws IOException {
        Set<String> natives = new TreeSet<>();
        try (JarFile jar = new JarFile(Path.of(System.getProperty("sluice.job.jar")).toFile())) {
            jar.stream()
                    .map(JarEntry::getName)
                    .filter(n -> NATIVE.matcher(n).matches())
                    .forEach(natives::add);
        }
        Set<String> expectedDirs = new TreeSet<>();
        SUPPORTED.forEach(
                (name, p) -> {
                    String sqlite = "org/sqlite/native/" + p.sqlite() + "/";
                    String snappy = "org/xerial/snappy/native/" + p.snappy() + "/";
                    String zstd = p.zstd() + "/";
                    String jna = "com/sun/jna/" + p.jna() + "/";
                    for (String dir : List.of(sqlite, snappy, zstd, jna)) {
                        assertThat(natives)
                                .as("a native library for %s under %s", name, dir)
                                .anyMatch(n -> n.startsWith(dir));
                        expectedDirs.add(dir);
                    }
                });
        SQLITE_MUSL.forEach(dir -> expectedDirs.add("org/sqlite/native/" + dir + "/"));
        // LZ4's (net/jpountz) for the platforms it builds: a subset of the supported ones.
        Set<String> lz4 =
                Set.of(
                        "linux/amd64",
                        "linux/aarch64",
                        "darwin/x86_64",
                        "darwin/aarch64",
                        "windows/amd64");
        lz4.forEach(dir -> expectedDirs.add("net/jpountz/util/" + dir + "/"));
        assertThat(natives)
                .as("native libraries of unsupported platforms")
                .allMatch(n -> expectedDirs.stream().anyMatch(n::startsWith));
    }
}
