package io.sluice.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.sluice.config.S3Config;
import io.sluice.config.S3Config.EnvCredentials;
import io.sluice.config.StorageConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the seam turns {@code storage} into Flink settings and finds the S3 plugin. Loading the
 * plugin and talking to a server is {@code S3LakeFileSystemITCase}'s (testkit).
 */
class LakeFileSystemTest {
    private static final S3Config LOCAL_SERVER =
            new S3Config(
                    Optional.of(URI.create("http://127.0.0.1:9000")),
                    Optional.of("us-east-1"),
                    true,
                    Optional.of(new EnvCredentials("LAKE_KEY", "LAKE_SECRET")));

    @TempDir Path dir;

    private String savedProperty;

    @BeforeEach
    void clearThePluginsProperty() {
        savedProperty = System.clearProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY);
    }

    @AfterEach
    void restoreThePluginsProperty() {
        if (savedProperty == null) {
            System.clearProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY);
        } else {
            System.setProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY, savedProperty);
        }
    }

    @Test
    void shouldPassEndpointRegionPathStyleAndTheKeysFromTheEnvironment() {
        Map<String, String> options =
                LakeFileSystem.s3Options(
                        LOCAL_SERVER, Map.of("LAKE_KEY", "access", "LAKE_SECRET", "secret"));

        assertThat(options)
                .containsExactly(
                        entry("s3.endpoint", "http://127.0.0.1:9000"),
                        entry("s3.endpoint.region", "us-east-1"),
                        entry("s3.path.style.access", "true"),
                        entry("s3.directory.marker.retention", "keep"),
                        entry(
                                "s3.aws.credentials.provider",
                                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"),
                        entry("s3.access-key", "access"),
                        entry("s3.secret-key", "secret"));
    }

    @Test
    void shouldUseTheDefaultProviderChainWithoutKeyVariables() {
        assertThat(LakeFileSystem.s3Options(S3Config.DEFAULTS, Map.of()))
                .containsExactly(
                        entry("s3.path.style.access", "false"),
                        entry("s3.directory.marker.retention", "keep"),
                        entry(
                                "s3.aws.credentials.provider",
                                "com.amazonaws.auth.DefaultAWSCredentialsProviderChain"));
    }

    @Test
    void shouldNameTheSettingButNotTheValueWhenAKeyVariableIsMissing() {
        assertThatThrownBy(
                        () ->
                                LakeFileSystem.s3Options(
                                        LOCAL_SERVER, Map.of("LAKE_KEY", "AKIAEXAMPLEKEY")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "storage.s3.secret_key_env: environment variable 'LAKE_SECRET' is not set"
                                + " in this process");
        assertThatThrownBy(
                        () ->
                                LakeFileSystem.s3Options(
                                        LOCAL_SERVER,
                                        Map.of("LAKE_KEY", "", "LAKE_SECRET", "t0ps3cret")))
                .hasMessageContaining("storage.s3.access_key_env")
                .hasMessageNotContaining("t0ps3cret");
    }

    @Test
    void shouldFindThePluginsDirectoryFromThePropertyThenTheEnvironmentThenTheCode() {
        Map<String, String> env = Map.of(LakeFileSystem.PLUGINS_DIR_ENV, "/opt/sluice/plugins");

        assertThat(LakeFileSystem.pluginsDir(Map.of()).getFileName()).hasToString("plugins");
        assertThat(LakeFileSystem.pluginsDir(Map.of()).getParent())
                .as("next to core's classes directory or jar")
                .hasFileName("target");
        assertThat(LakeFileSystem.pluginsDir(env)).isEqualTo(Path.of("/opt/sluice/plugins"));

        System.setProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY, dir.toString());
        assertThat(LakeFileSystem.pluginsDir(env)).isEqualTo(dir);
    }

    @Test
    void shouldSayWhereToPutThePluginWhenItIsMissing() throws Exception {
        Files.createDirectories(dir.resolve("s3-fs-hadoop"));
        Files.writeString(dir.resolve("s3-fs-hadoop/README"), "not a jar");

        assertThatThrownBy(() -> LakeFileSystem.s3PluginManager(dir, new Configuration()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("flink-s3-fs-hadoop")
                .hasMessageContaining(dir.resolve("s3-fs-hadoop").toString())
                .hasMessageContaining("SLUICE_PLUGINS_DIR")
                .hasMessageContaining("-Dsluice.plugins.dir");
    }

    @Test
    void shouldLeaveAFileRootAlone() {
        System.setProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY, dir.toString());

        // No plugin in dir: this would throw if it tried to set up S3.
        LakeFileSystem.initialize(new StorageConfig(dir.toUri()), Map.of());
    }

    @Test
    void shouldRefuseAnS3RootWithoutThePlugin() {
        System.setProperty(LakeFileSystem.PLUGINS_DIR_PROPERTY, dir.toString());
        StorageConfig storage = new StorageConfig(URI.create("s3://acme-lake/sluice"));

        assertThatThrownBy(() -> LakeFileSystem.initialize(storage, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("an s3: lake needs Flink's S3 file system plugin");
    }
}
