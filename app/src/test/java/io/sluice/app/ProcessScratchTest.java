package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testing.ChildJava;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code sluice} process that runs a job locally and exits leaves nothing in the temporary
 * directory it was given, though Flink closes the job's MiniCluster only after the result is in.
 */
class ProcessScratchTest {

    @Test
    void aProcessThatRanALocalJobLeavesNothingInTheTemporaryDirectory(@TempDir Path dir)
            throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path log = dir.resolve("child.log");
        List<String> command =
                ChildJava.command(
                        "-Xmx256m",
                        "-Djava.io.tmpdir=" + tmp,
                        "-cp",
                        ChildJava.classPath(),
                        LocalJob.class.getName());
        ChildJava.Exited child = ChildJava.run(command, Map.of(), log, Duration.ofMinutes(3));
        String output = child.output();
        assertThat(child.exit()).as(output).isZero();
        assertThat(output)
                .as("the job ran, in the process's own directory")
                .contains("sum 6", "tmpdir " + tmp + "/sluice-");
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).as("left behind in java.io.tmpdir").isEmpty();
        }
    }

    /** {@code sluice}'s way to start: its own scratch, a local job, then the exit at once. */
    static final class LocalJob {
        public static void main(String[] args) throws Exception {
            ProcessScratch.install();
            System.out.println("tmpdir " + System.getProperty("java.io.tmpdir"));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            long sum = 0;
            try (CloseableIterator<Integer> it = env.fromData(1, 2, 3).executeAndCollect()) {
                while (it.hasNext()) {
                    sum += it.next();
                }
            }
            System.out.println("sum " + sum);
            System.exit(0);
        }
    }
}
