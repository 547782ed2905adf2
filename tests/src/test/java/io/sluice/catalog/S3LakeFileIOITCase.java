package io.sluice.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.StorageConfig;
import io.sluice.lake.LakeFileSystem;
import io.sluice.s3.LocalS3;
import io.sluice.testing.ChildJava;
import io.sluice.testing.TestClusters;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg's files written through {@link LakeFileIO} on an object store (S3Proxy in this JVM,
 * Flink's S3 plugin in a child JVM's). Iceberg flushes each metadata file before closing it; on S3
 * that flush must not reach S3A's {@code hflush}, which warns once per JVM that the application
 * called an unsupported API. Hence the child: in this test JVM another test may have drawn that one
 * warning already.
 */
class S3LakeFileIOITCase {

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    private static final String FIRST = "{\"format-version\": 2,";
    private static final String SECOND = " \"location\": \"x\"}";

    @Test
    void flushedMetadataIsUploadedWholeWithoutAWarning(@TempDir Path dir) throws Exception {
        StorageConfig lake = S3.newLake();
        String file = lake.rootUri() + "/metadata/00000-v1.metadata.json";
        List<String> command =
                ChildJava.command(
                        "-D"
                                + LakeFileSystem.PLUGINS_DIR_PROPERTY
                                + "="
                                + System.getProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY));
        command.addAll(
                List.of(
                        "-cp",
                        ChildJava.classPath(),
                        WriteFlushed.class.getName(),
                        file,
                        lake.rootUri().toString(),
                        S3.server().endpoint().toString()));
        ChildJava.Exited child =
                ChildJava.run(
                        command,
                        S3.server().env(),
                        dir.resolve("child.log"),
                        Duration.ofMinutes(2));
        String output = child.output();
        assertThat(child.exit()).as(output).isZero();
        assertThat(output).contains("length " + (FIRST + SECOND).length());
        assertThat(output).doesNotContain("Syncable");
        Path object = S3.server().objectFile(URI.create(file).getPath().substring(1));
        assertThat(Files.readString(object)).isEqualTo(FIRST + SECOND);
    }

    /** Writes a file as Iceberg writes its metadata: a flush after each part, then a close. */
    static final class WriteFlushed {
        public static void main(String[] args) throws IOException {
            LakeFileSystem.initialize(
                    new StorageConfig(
                            URI.create(args[1]),
                            Optional.of(LocalS3.s3Config(URI.create(args[2])))));
            LakeFileIO io = new LakeFileIO();
            try (PositionOutputStream out = io.newOutputFile(args[0]).create()) {
                out.write(FIRST.getBytes(StandardCharsets.UTF_8));
                out.flush();
                out.write(SECOND.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            System.out.println("length " + io.newInputFile(args[0]).getLength());
        }
    }
}
