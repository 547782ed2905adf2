package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.lake.LakeFileSystem;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config} option every command that reads {@code sluice.yaml} shares. */
final class ConfigFile {

    @Option(names = "--config", required = true, description = "Path of sluice.yaml.")
    Path path;

    /**
     * The config, validated; errors name the file, line and key. An object-store lake's file system
     * is set up for this process ({@link LakeFileSystem#initialize}), so the commands and the jobs
     * they run here read and write it like a local one.
     */
    SluiceConfig load() {
        SluiceConfig config = SluiceConfig.load(path);
        LakeFileSystem.initialize(config.storage());
        return config;
    }

    @Override
    public String toString() {
        return String.valueOf(path);
    }
}
