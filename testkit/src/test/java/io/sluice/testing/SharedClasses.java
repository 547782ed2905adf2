package io.sluice.testing;

import io.sluice.lake.Sha256;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A class-data sharing archive (the JDK's AppCDS) of this JVM's class path, which the child JVMs of
 * {@link ChildJava} map instead of loading and verifying the same Flink classes each time: a child
 * that starts a job spends about a quarter less CPU. Only where the build asks for it, with the
 * system property {@value #DIRECTORY_PROPERTY} (the directory the archive is kept in), as a module
 * whose tests start many children ({@code sluice ingest}, {@code features}…) does.
 *
 * <p>The JDK archives classes from jars only, and refuses a class path with a class directory
 * before a jar it archived from; so the children's class path has the test JVM's class directories
 * (a module's {@code target/classes} and {@code target/test-classes}) as jars, in the same places.
 * The archive is made once per class path and content by a training JVM that runs {@link
 * CdsTraining} and writes it at exit ({@code -XX:ArchiveClassesAtExit}); test JVMs that ask at the
 * same time wait on a file lock, and the archive is moved into place only when complete. On any
 * failure here the children run without it, on this JVM's class path.
 */
final class SharedClasses {

    static final String DIRECTORY_PROPERTY = "sluice.test.cds.dir";

    /** The options that map an archive (none without one), and the class path it was made for. */
    record Use(List<String> options, String classPath) {}

    private static Use use;

    private SharedClasses() {}

    /** As the build asks: from {@value #DIRECTORY_PROPERTY}, made once per test JVM. */
    static synchronized Use forChildren() {
        if (use == null) {
            String dir = System.getProperty(DIRECTORY_PROPERTY);
            String classPath = System.getProperty("java.class.path");
            use =
                    dir == null
                            ? new Use(List.of(), classPath)
                            : in(Path.of(dir), classPath, CdsTraining.class.getName());
        }
        return use;
    }

    /**
     * An archive of {@code classPath} kept in {@code dir}, made if it is not there yet by running
     * {@code training} (a main class that takes a scratch directory) on that class path.
     */
    static Use in(Path dir, String classPath, String training) {
        try {
            List<Path> entries = new ArrayList<>();
            List<Path> directories = new ArrayList<>();
            StringBuilder identity = new StringBuilder(System.getProperty("java.home"));
            identity.append(ChildJava.inheritedOptions());
            for (String entry : classPath.split(File.pathSeparator)) {
                Path path = Path.of(entry).toAbsolutePath();
                entries.add(path);
                identity.append('\n').append(path);
                if (Files.isDirectory(path)) {
                    directories.add(path);
                    fingerprint(path, identity);
                } else if (Files.isRegularFile(path)) {
                    // The JVM refuses an archive whose jars changed since (a rebuilt job jar), and
                    // would then run every child without one.
                    identity.append(' ')
                            .append(Files.size(path))
                            .append(' ')
                            .append(Files.getLastModifiedTime(path).toMillis());
                }
            }
            String id =
                    Sha256.hex(identity.toString().getBytes(StandardCharsets.UTF_8))
                            .substring(0, 16);
            Files.createDirectories(dir);
            // Each class directory's jar, and the class path with those in their places.
            Map<Path, Path> jars = new LinkedHashMap<>();
            for (Path directory : directories) {
                jars.put(directory, dir.resolve(id + "-" + jars.size() + ".jar"));
            }
            List<String> jarred =
                    entries.stream().map(e -> jars.getOrDefault(e, e).toString()).toList();
            String childClassPath = String.join(File.pathSeparator, jarred);
            Path archive = dir.resolve(id + ".jsa");
            try (FileChannel channel =
                            FileChannel.open(
                                    dir.resolve(id + ".lock"),
                                    StandardOpenOption.CREATE,
                                    StandardOpenOption.WRITE);
                    FileLock lock = channel.lock()) {
                boolean jarsThere = jars.values().stream().allMatch(Files::isRegularFile);
                if (!Files.exists(archive) || !jarsThere) {
                    for (var jar : jars.entrySet()) {
                        jar(jar.getKey(), jar.getValue());
                    }
                    train(childClassPath, training, archive);
                }
            }
            // Mapped where it was dumped rather than relocated (the JDK's default, which rewrites
            // every pointer in the archive, a fifth of a bare child's start-up CPU here); the JVM
            // still relocates it when that address is taken.
            return new Use(
                    List.of(
                            "-XX:SharedArchiveFile=" + archive,
                            "-XX:+UnlockDiagnosticVMOptions",
                            "-XX:ArchiveRelocationMode=0",
                            "-Xlog:cds=off,cds+dynamic=off"),
                    childClassPath);
        } catch (IOException | UncheckedIOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            System.err.println("SharedClasses: children run without a class-data archive: " + e);
            return new Use(List.of(), classPath);
        }
    }

    /** Every file's path, size and modification time: a changed class makes another archive. */
    private static void fingerprint(Path directory, StringBuilder identity) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                identity.append('\n')
                        .append(directory.relativize(f))
                        .append(' ')
                        .append(Files.size(f))
                        .append(' ')
                        .append(Files.getLastModifiedTime(f).toMillis());
            }
        }
    }

    private static void jar(Path directory, Path jar) throws IOException {
        Path partial = jar.resolveSibling(jar.getFileName() + ".partial");
        try (OutputStream out = Files.newOutputStream(partial);
                JarOutputStream zip = new JarOutputStream(out);
                Stream<Path> files = Files.walk(directory)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                zip.putNextEntry(
                        new JarEntry(directory.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, zip);
                zip.closeEntry();
            }
        }
        Files.move(
                partial, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void train(String classPath, String training, Path archive)
            throws IOException, InterruptedException {
        Path partial = archive.resolveSibling(archive.getFileName() + ".partial");
        Path log = archive.resolveSibling(archive.getFileName() + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ChildJava.inheritedOptions());
        command.addAll(
                List.of(
                        "-Xmx256m",
                        "-XX:ArchiveClassesAtExit=" + partial,
                        "-Xlog:cds=off,cds+dynamic=off",
                        "-cp",
                        classPath,
                        training,
                        // The training job's output: beside the archive, in the build's
                        // output, not in the system's temporary directory.
                        Files.createDirectories(
                                        archive.resolveSibling(archive.getFileName() + ".training"))
                                .toString()));
        Process run =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        if (!run.waitFor(3, TimeUnit.MINUTES)) {
            run.destroyForcibly();
            throw new IOException("the training JVM did not finish; see " + log);
        }
        if (run.exitValue() != 0 || !Files.exists(partial)) {
            throw new IOException(
                    "the training JVM exited with " + run.exitValue() + "; see " + log);
        }
        Files.move(
                partial,
                archive,
                StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }
}
