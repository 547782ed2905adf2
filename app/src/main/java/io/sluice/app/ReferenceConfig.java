package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The reference {@code sluice.yaml} shipped in the jar, written into a local run's directory with
 * that run's broker and with the directory itself as the storage root, so that every other command
 * can be pointed at the run with {@code --config DIR/sluice.yaml}.
 */
public final class ReferenceConfig {

    static final String RESOURCE = "/io/sluice/app/sluice.yaml";

    private ReferenceConfig() {}

    public static SluiceConfig writeInto(Path dir, String bootstrap) throws IOException {
        String yaml;
        try (InputStream in = ReferenceConfig.class.getResourceAsStream(RESOURCE)) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        yaml =
                yaml.replace("${KAFKA_BOOTSTRAP:-localhost:9092}", bootstrap)
                        .replace("${SLUICE_STORAGE_ROOT:-file:./data}", "file:.");
        Files.createDirectories(dir);
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, yaml);
        return SluiceConfig.load(file);
    }
}
