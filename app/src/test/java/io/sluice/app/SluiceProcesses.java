package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lake.LakeFileSystem;
import io.sluice.testing.ChildJava;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Sluice commands run as child JVMs, the way a user or a container runs them ({@code java -cp …
 * io.sluice.app.Main <command>}), each with its output in a log file, so that a test can kill one
 * with SIGKILL. Every process still running after a test is killed, with the processes it started.
 */
final class SluiceProcesses implements AfterEachCallback {

    private final String heap;
    private final List<Process> started = new ArrayList<>();

    /**
     * @param heap the children's {@code -Xmx}, for example {@code 768m}
     */
    SluiceProcesses(String heap) {
        this.heap = heap;
    }

    /** Starts {@code sluice args…} with this JVM's environment. */
    Child start(Path log, String... args) throws IOException {
        return start(log, Map.of(), args);
    }

    /** Starts {@code sluice args…} with {@code env} added to this JVM's environment. */
    Child start(Path log, Map<String, String> env, String... args) throws IOException {
        List<String> command = ChildJava.command("-Xmx" + heap);
        // Where the build put the S3 plugin, Flink's jars (sluice cluster) and the job jar.
        for (String property :
                List.of(
                        LakeFileSystem.PLUGINS_DIR_PROPERTY,
                        LocalFlinkCluster.LIB_PROPERTY,
                        RemoteJob.JAR_PROPERTY)) {
            String value = System.getProperty(property);
            if (value != null) {
                command.add("-D" + property + "=" + value);
            }
        }
        command.add("-cp");
        command.add(ChildJava.classPath());
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        started.add(process);
        return new Child(process, log);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        for (Process p : started) {
            // The processes a command started (sluice cluster's job and task managers) first.
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        started.clear();
    }

    /** One started command and the file its output goes to. */
    record Child(Process process, Path log) {

        String output() {
            try {
                return Files.readString(log, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        boolean isAlive() {
            return process.isAlive();
        }

        /** SIGKILL: no shutdown hook, no final checkpoint, no flush. */
        void kill() throws InterruptedException {
            assertThat(process.isAlive()).as("still running when killed: " + output()).isTrue();
            process.destroyForcibly();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("killed").isTrue();
            assertThat(process.exitValue()).as("ended by SIGKILL").isEqualTo(137);
        }

        /** Waits for the command to end by itself and returns its exit status. */
        int awaitExit(long minutes) throws InterruptedException {
            if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
                throw new AssertionError("still running after " + minutes + " min: " + output());
            }
            return process.exitValue();
        }
    }
}
