package io.sluice.testing;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.Schemas;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The reference {@code sluice.yaml}, pointed at a test's broker and directory, with a per-test
 * topic prefix so tests sharing a broker never see each other's records.
 */
public final class TestConfigs {

    private TestConfigs() {}

    /** Finds the repository's reference config from any module's working directory. */
    public static Path referenceFile() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("sluice.yaml");
            if (Files.isRegularFile(candidate) && Files.exists(dir.resolve("mvnw"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("reference sluice.yaml not found above the working dir");
    }

    public static SluiceConfig shop(Path root, String bootstrap, String topicPrefix) {
        try {
            String yaml =
                    Files.readString(referenceFile())
                            .replace("topic: shop.", "topic: " + topicPrefix + ".shop.");
            return SluiceConfig.parse(
                    yaml,
                    "sluice.yaml",
                    root,
                    name -> Schemas.current(name).orElse(null),
                    Map.of(
                            "KAFKA_BOOTSTRAP",
                            bootstrap,
                            "SLUICE_STORAGE_ROOT",
                            root.toUri().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
