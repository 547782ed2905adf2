package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.s3.LocalS3;
import io.sluice.schemas.Schemas;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The reference {@code sluice.yaml} shipped in the jar, written into a local run's directory with
 * that run's broker and with the directory itself as the storage root, so that every other command
 * can be pointed at the run with {@code --config DIR/sluice.yaml}.
 */
public final class ReferenceConfig {

    static final String RESOURCE = "/io/sluice/app/sluice.yaml";

    private ReferenceConfig() {}

    public static SluiceConfig writeInto(Path dir, String bootstrap) throws IOException {
        return SluiceConfig.load(write(dir, bootstrap, reference()));
    }

    /**
     * The reference config with its lake in {@code s3}'s bucket under prefix {@code sluice}, the
     * server's endpoint and the names of the variables holding its keys (never the keys), and the
     * online store in {@code DIR/online.db}; loaded with {@code env} holding those variables.
     */
    public static SluiceConfig writeInto(
            Path dir, String bootstrap, LocalS3 s3, Map<String, String> env) throws IOException {
        String storage =
                """
                storage:
                  root: %s
                  s3:
                    endpoint: %s
                    region: us-east-1
                    path_style_access: true
                    access_key_env: %s
                    secret_key_env: %s
                """
                        .formatted(
                                s3.uri("sluice"),
                                s3.endpoint(),
                                LocalS3.ACCESS_KEY_ENV,
                                LocalS3.SECRET_KEY_ENV);
        String yaml =
                reference()
                        .replace("storage:\n  root: ${SLUICE_STORAGE_ROOT:-file:./data}\n", storage)
                        .replace(
                                "  store: sqlite            # path defaults to"
                                        + " <storage.root>/online.db\n",
                                "  store: sqlite\n  path: online.db\n")
                        // The catalog's database is a local file (the tables' metadata is in
                        // the bucket, beside their data).
                        .replace("catalog:\n", "catalog:\n  path: catalog.db\n");
        if (!yaml.contains(LocalS3.ACCESS_KEY_ENV)
                || !yaml.contains("path: online.db")
                || !yaml.contains("  path: catalog.db\n")) {
            throw new IllegalStateException(
                    "the reference sluice.yaml's storage or online section changed: update"
                            + " ReferenceConfig");
        }
        return SluiceConfig.load(
                write(dir, bootstrap, yaml), name -> Schemas.current(name).orElse(null), env);
    }

    private static String reference() throws IOException {
        try (InputStream in = ReferenceConfig.class.getResourceAsStream(RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Path write(Path dir, String bootstrap, String yaml) throws IOException {
        yaml =
                yaml.replace("${KAFKA_BOOTSTRAP:-localhost:9092}", bootstrap)
                        .replace("${SLUICE_STORAGE_ROOT:-file:./data}", "file:.");
        Files.createDirectories(dir);
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
