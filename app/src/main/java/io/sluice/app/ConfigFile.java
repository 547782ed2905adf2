package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config} option every command that reads {@code sluice.yaml} shares. */
final class ConfigFile {

    @Option(names = "--config", required = true, description = "Path of sluice.yaml.")
    Path path;

    /** The config, validated; errors name the file, line and key. */
    SluiceConfig load() {
        return SluiceConfig.load(path);
    }

    @Override
    public String toString() {
        return String.valueOf(path);
    }
}
