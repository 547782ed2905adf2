package io.sluice.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.UUID;
import org.apache.flink.util.FileUtils;

/**
 * A temporary directory of the {@code sluice} process's own, made its {@code java.io.tmpdir} and
 * deleted when it exits.
 *
 * <p>A command that runs a job locally exits as soon as the job's result is in, while Flink is
 * still closing its MiniCluster asynchronously ({@code MiniClusterJobClient} does not wait for the
 * close). What the close would have deleted stays behind in the temporary directory: Flink's
 * extracted RPC jar (21 MB), the MiniCluster's working directories, native libraries unpacked by
 * Snappy and SQLite. Every {@code sluice compact} left about 22 MB in {@code /tmp} so. Flink's
 * {@code io.tmp.dirs} defaults to {@code java.io.tmpdir}, so moving the property moves all of it
 * into a directory this process deletes on its way out. A process killed with SIGKILL still leaves
 * its directory, as it left the files before.
 */
final class ProcessScratch {

    private ProcessScratch() {}

    /**
     * Makes the directory and the property point to it. Call it first thing in {@code main}: the
     * JDK and Flink read {@code java.io.tmpdir} once, when they first need it.
     */
    static void install() {
        Path base = Path.of(System.getProperty("java.io.tmpdir"));
        Path dir =
                base.resolve("sluice-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID());
        try {
            // Not Files.createTempDirectory: it would read and keep the property first.
            Files.createDirectory(
                    dir,
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
        } catch (IOException | UnsupportedOperationException e) {
            return; // the default temporary directory, as before
        }
        System.setProperty("java.io.tmpdir", dir.toString());
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> FileUtils.deleteDirectoryQuietly(dir.toFile()),
                                "sluice-scratch-cleanup"));
    }
}
