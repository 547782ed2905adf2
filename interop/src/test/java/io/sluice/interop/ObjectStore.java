package io.sluice.interop;

import io.sluice.testing.ChildJava;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * An S3-compatible server (S3Proxy, from Maven Central, through the testkit's {@code LocalS3}) in a
 * JVM of its own on the app's class path ({@link ObjectStoreMain}), its objects plain files under a
 * directory: the object store that {@code ./sluice} writes a lake to and Spark reads it from.
 */
final class ObjectStore implements AutoCloseable {

    static final String BUCKET = "lake";

    /** The environment variables {@code storage.s3} names for the keys. */
    static final String ACCESS_KEY_ENV = "LAKE_ACCESS_KEY";

    static final String SECRET_KEY_ENV = "LAKE_SECRET_KEY";

    private final Process process;
    private final URI endpoint;
    final String accessKey;
    final String secretKey;

    private ObjectStore(Process process, URI endpoint, String accessKey, String secretKey) {
        this.process = process;
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /** Starts the server on {@code dir}, with the app module's {@code target} at {@code app}. */
    static ObjectStore start(Path dir, Path app) throws IOException {
        String classPath =
                String.join(
                        java.io.File.pathSeparator,
                        app.resolve("sluice.jar").toString(),
                        app.resolve("lib/*").toString(),
                        Path.of(
                                        ObjectStoreMain.class
                                                .getProtectionDomain()
                                                .getCodeSource()
                                                .getLocation()
                                                .getPath())
                                .toString());
        List<String> command = ChildJava.command("-Xmx256m");
        command.addAll(List.of("-cp", classPath, ObjectStoreMain.class.getName()));
        command.addAll(List.of(dir.toString(), BUCKET));
        Process process =
                new ProcessBuilder(command)
                        .redirectError(dir.resolveSibling(dir.getFileName() + ".err").toFile())
                        .start();
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null) {
            process.destroyForcibly();
            throw new IOException("the object store's JVM ended before it printed its endpoint");
        }
        String[] parts = line.strip().split(" ");
        return new ObjectStore(process, URI.create(parts[0]), parts[1], parts[2]);
    }

    URI endpoint() {
        return endpoint;
    }

    /**
     * Uploads every file under {@code local} to the same relative keys under {@code prefix},
     * through S3's API (Iceberg's S3FileIO), as a writer of the lake would.
     */
    void upload(Path local, String prefix) throws IOException {
        try (S3FileIO io = new S3FileIO();
                Stream<Path> files = Files.walk(local)) {
            io.initialize(
                    Map.of(
                            "s3.endpoint",
                            endpoint.toString(),
                            "s3.path-style-access",
                            "true",
                            "s3.access-key-id",
                            accessKey,
                            "s3.secret-access-key",
                            secretKey,
                            "client.region",
                            "us-east-1"));
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String key = prefix + "/" + local.relativize(f).toString().replace('\\', '/');
                try (PositionOutputStream out =
                        io.newOutputFile("s3://" + BUCKET + "/" + key).createOrOverwrite()) {
                    Files.copy(f, out);
                }
            }
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.getOutputStream().close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
