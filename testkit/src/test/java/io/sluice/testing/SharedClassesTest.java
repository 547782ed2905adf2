package io.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedClassesTest {

    @TempDir Path dir;

    @Test
    void shouldGiveChildrenAnArchiveTheirJvmMapsAndLoadsFlinkFrom() throws Exception {
        String classPath = System.getProperty("java.class.path");
        assertThat(Arrays.stream(classPath.split(File.pathSeparator)).map(Path::of))
                .as("this JVM's class directories")
                .anyMatch(Files::isDirectory);

        // Trained on a main that loads one Flink class (the build's children train on CdsTraining).
        SharedClasses.Use use = SharedClasses.in(dir, classPath, LoadsFlink.class.getName());

        assertThat(use.options()).isNotEmpty();
        assertThat(Arrays.stream(use.classPath().split(File.pathSeparator)).map(Path::of))
                .as("the children's class path")
                .hasSameSizeAs(classPath.split(File.pathSeparator))
                .noneMatch(Files::isDirectory);
        // -Xshare:on: a JVM that cannot map the archive (another class path, a broken file) does
        // not start, instead of running without it.
        List<String> command = new ArrayList<>(ChildJava.command());
        command.addAll(List.of("-Xshare:on", "-Xlog:class+load=info", "-cp", use.classPath()));
        command.add(LoadsFlink.class.getName());
        command.addAll(1, use.options());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output)
                .contains(
                        "org.apache.flink.streaming.api.environment.StreamExecutionEnvironment"
                                + " source: shared objects file (top)");

        // A second test JVM asking for the same class path gets the same archive, not a new one.
        long made = Files.getLastModifiedTime(dir.resolve(archiveOf(use))).toMillis();
        assertThat(SharedClasses.in(dir, classPath, LoadsFlink.class.getName())).isEqualTo(use);
        assertThat(Files.getLastModifiedTime(dir.resolve(archiveOf(use))).toMillis())
                .isEqualTo(made);

        // A class directory's jar gone (the archive left): both are made again.
        Path jar =
                Arrays.stream(use.classPath().split(File.pathSeparator))
                        .map(Path::of)
                        .filter(p -> p.startsWith(dir))
                        .findFirst()
                        .orElseThrow();
        Files.delete(jar);
        assertThat(SharedClasses.in(dir, classPath, LoadsFlink.class.getName())).isEqualTo(use);
        assertThat(jar).isRegularFile();

        // A jar of the class path rebuilt (a job jar packaged again): another archive, since the
        // JVM would refuse the old one and run the children without any.
        Path rebuilt = dir.resolve("job.jar");
        Files.copy(jar, rebuilt);
        String withJob = classPath + File.pathSeparator + rebuilt;
        SharedClasses.Use before = SharedClasses.in(dir, withJob, LoadsFlink.class.getName());
        Files.setLastModifiedTime(
                rebuilt,
                FileTime.fromMillis(Files.getLastModifiedTime(rebuilt).toMillis() + 60_000));
        SharedClasses.Use after = SharedClasses.in(dir, withJob, LoadsFlink.class.getName());
        assertThat(archiveOf(after)).isNotEqualTo(archiveOf(before));
        assertThat(dir.resolve(archiveOf(after))).isRegularFile();
    }

    private static String archiveOf(SharedClasses.Use use) {
        String option = use.options().get(0);
        return Path.of(option.substring(option.indexOf('=') + 1)).getFileName().toString();
    }

    /** Loads a Flink class: the training, and the child that must find it in the archive. */
    static final class LoadsFlink {
        public static void main(String[] args) throws ClassNotFoundException {
            Class.forName("org.apache.flink.streaming.api.environment.StreamExecutionEnvironment");
        }
    }
}
