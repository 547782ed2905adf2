package io.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.util.FileUtils;

/**
 * The start of a command line that runs a class in a new JVM for a test: this JVM's {@code java}
 * launcher, this JVM's JIT and garbage-collector flags, then the caller's options.
 *
 * <p>The build runs its tests with the C1 compiler only, the serial collector and no verification
 * of the class path's bytecode (the parent pom's {@code test.jvm.options}): test JVMs live for
 * seconds to minutes, where C2's compilations, G1's concurrent threads and verifying every loaded
 * class cost more CPU than they save, and the build has two cores. Child JVMs (a killed job, a
 * compaction in a small heap, a cluster's job and task managers) inherit the same flags, so a test
 * costs the same whether its work runs in the test JVM or in a child.
 */
public final class ChildJava {

    /** The children's temporary directories, deleted when this JVM exits; made on first use. */
    private static Path childrenTmp;

    private ChildJava() {}

    /**
     * {@code java}, the inherited flags, the class-data archive of this JVM's class path where the
     * build asks for one ({@link SharedClasses}), a temporary directory of the child's own, then
     * {@code options} (which may name another {@code -Djava.io.tmpdir}: the last one counts).
     */
    public static List<String> command(String... options) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(inheritedOptions());
        command.addAll(SharedClasses.forChildren().options());
        command.add("-Djava.io.tmpdir=" + newTmpDir());
        command.addAll(List.of(options));
        return command;
    }

    /** A child that has exited: its exit value and everything it printed. */
    public record Exited(int exit, String output) {}

    /**
     * Runs {@code command} (from {@link #command}) with {@code env} added to this JVM's
     * environment, its output and errors to {@code log}, until it exits. A child still running
     * after {@code timeout} is killed and fails the test with what it printed.
     */
    public static Exited run(
            List<String> command, Map<String, String> env, Path log, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(
                    "child JVM did not finish within " + timeout + ": " + Files.readString(log));
        }
        return new Exited(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /**
     * A fresh directory under one that this JVM deletes when it exits. A child killed with SIGKILL
     * cannot delete what it put in {@code java.io.tmpdir} (Flink's extracted RPC jar of 21 MB, a
     * MiniCluster's directories, native libraries, S3 upload buffers), and a build kills dozens.
     */
    private static synchronized Path newTmpDir() {
        try {
            if (childrenTmp == null) {
                Path root = Files.createTempDirectory("sluice-children-");
                Runtime.getRuntime()
                        .addShutdownHook(
                                new Thread(() -> FileUtils.deleteDirectoryQuietly(root.toFile())));
                childrenTmp = root;
            }
            return Files.createTempDirectory(childrenTmp, "child-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The class path for a child that runs this JVM's classes: the same entries, with class
     * directories as jars where the children share a class-data archive ({@link SharedClasses}).
     */
    public static String classPath() {
        return SharedClasses.forChildren().classPath();
    }

    /**
     * This JVM's JIT tier, collector and bytecode verification flags, in their order, for example
     * {@code -XX:TieredStopAtLevel=1}.
     */
    public static List<String> inheritedOptions() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(
                        arg ->
                                arg.startsWith("-XX:TieredStopAtLevel=")
                                        || (arg.startsWith("-XX:+Use") && arg.endsWith("GC"))
                                        || arg.equals("-XX:+UnlockDiagnosticVMOptions")
                                        || arg.equals("-XX:-BytecodeVerificationRemote"))
                .toList();
    }
}
