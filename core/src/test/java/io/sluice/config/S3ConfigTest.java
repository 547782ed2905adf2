package io.sluice.config;

import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static io.sluice.config.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.S3Config.EnvCredentials;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class S3ConfigTest {
    private static final Map<String, String> KEYS =
            Map.of("LAKE_KEY", "AKIAEXAMPLEKEY", "LAKE_SECRET", "wJalrXUtnFEMI/K7MDENG");

    /**
     * {@link TestConfigs#VALID} on an s3 root; the block's lines are 6, 7, … and a SQLite path
     * follows the block, so the root needs nothing more.
     */
    private static String withS3(String... lines) {
        StringBuilder block = new StringBuilder("  root: s3://acme-lake/sluice\n  s3:\n");
        for (String line : lines) {
            block.append("    ").append(line).append('\n');
        }
        return VALID.replace("  root: file:./data\n", block.toString())
                .replace("tables:", "online: { path: /var/db }\ntables:");
    }

    @Test
    void shouldReadEndpointRegionPathStyleAndTheNamesOfTheKeyVariables() {
        StorageConfig storage =
                parse(
                                withS3(
                                        "endpoint: http://127.0.0.1:9000/",
                                        "region: us-east-1",
                                        "path_style_access: true",
                                        "access_key_env: LAKE_KEY",
                                        "secret_key_env: LAKE_SECRET"),
                                KEYS)
                        .storage();

        assertThat(storage.s3())
                .contains(
                        new S3Config(
                                Optional.of(URI.create("http://127.0.0.1:9000")),
                                Optional.of("us-east-1"),
                                true,
                                Optional.of(new EnvCredentials("LAKE_KEY", "LAKE_SECRET"))));
        assertThat(storage.toString()).doesNotContain("AKIAEXAMPLEKEY", "wJalr");
    }

    @Test
    void shouldUseAwsAndItsProviderChainWithoutABlock() {
        StorageConfig s3 = parse(withS3().replace("  s3:\n", "")).storage();
        StorageConfig local = parse(VALID).storage();

        assertThat(s3.s3()).isEmpty();
        assertThat(s3.usesS3()).isTrue();
        assertThat(s3.s3OrDefaults()).isEqualTo(S3Config.DEFAULTS);
        assertThat(local.usesS3()).isFalse();
    }

    @Test
    void shouldReadAnEmptyBlockAsTheDefaults() {
        String yaml = withS3().replace("  s3:\n", "  s3: {}\n");

        assertThat(parse(yaml).storage().s3()).contains(S3Config.DEFAULTS);
    }

    @Test
    void shouldAllowABlockBesideAFileRootForS3Checkpoints() {
        String yaml =
                VALID.replace(
                        "  root: file:./data\n",
                        "  root: file:./data\n  s3:\n    region: eu-west-1\n");

        StorageConfig storage = parse(yaml).storage();

        assertThat(storage.isLocal()).isTrue();
        assertThat(storage.usesS3()).isTrue();
        assertThat(storage.s3OrDefaults().region()).contains("eu-west-1");
    }

    @Test
    void shouldRejectAnEndpointThatIsNotAnHttpUrlWithoutAPath() {
        String message =
                "storage.s3.endpoint: must be an http:// or https:// URL with a host, an optional"
                        + " port and no path, as in http://127.0.0.1:9000";
        for (String endpoint :
                List.of(
                        "s3://acme-lake",
                        "ftp://minio:9000",
                        "'127.0.0.1:9000'",
                        "https://minio:9000/lake",
                        "'http://minio:9000?x=1'",
                        "http:///nohost")) {
            assertThat(errors(withS3("endpoint: " + endpoint)))
                    .as(endpoint)
                    .containsExactly("sluice.yaml:6: " + message);
        }
    }

    @Test
    void shouldRefuseCredentialsInTheEndpointWithoutRepeatingThem() {
        assertThat(errors(withS3("endpoint: 'https://AKIAX:t0ps3cret@minio:9000'")))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.endpoint: must not hold credentials: name the"
                                + " environment variables that hold them with access_key_env and"
                                + " secret_key_env");
    }

    @Test
    void shouldRequirePathStyleAccessForAnEndpointThatIsAnAddressOrLocalhost() {
        for (String endpoint :
                List.of("http://127.0.0.1:9000", "http://localhost:9000", "'http://[::1]:9000'")) {
            assertThat(errors(withS3("endpoint: " + endpoint, "region: us-east-1")))
                    .as(endpoint)
                    .containsExactly(
                            "sluice.yaml:6: storage.s3.path_style_access: must be true when"
                                    + " endpoint is an IP address or localhost (a bucket cannot be"
                                    + " a sub-domain of it)");
        }
        assertThat(parse(withS3("endpoint: https://minio.internal:9000")).storage().s3())
                .get()
                .returns(false, S3Config::pathStyleAccess);
    }

    @Test
    void shouldRejectAPathStyleThatIsNotTrueOrFalse() {
        assertThat(errors(withS3("path_style_access: yes")))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.path_style_access: must be true or false, got"
                                + " 'yes'");
    }

    @Test
    void shouldRejectARegionThatIsNotARegionName() {
        assertThat(errors(withS3("region: 'US East'")))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.region: must be a region name such as"
                                + " us-east-1, got 'US East'");
    }

    @Test
    void shouldRequireBothKeyVariablesOrNeither() {
        assertThat(errors(withS3("access_key_env: LAKE_KEY"), KEYS))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.secret_key_env: required when access_key_env"
                                + " is set");
        assertThat(errors(withS3("region: us-east-1", "secret_key_env: LAKE_SECRET"), KEYS))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.access_key_env: required when secret_key_env"
                                + " is set");
    }

    @Test
    void shouldRefuseKeysWrittenInTheFileWithoutRepeatingThem() {
        List<String> errors =
                errors(withS3("access_key: AKIAEXAMPLEKEY", "secret_key: wJalrXUtnFEMI/K7MDENG"));

        assertThat(errors)
                .containsExactly(
                        "sluice.yaml:6: storage.s3.access_key: credentials do not belong in this"
                                + " file: put the key in an environment variable and name that"
                                + " variable with access_key_env",
                        "sluice.yaml:7: storage.s3.secret_key: credentials do not belong in this"
                                + " file: put the key in an environment variable and name that"
                                + " variable with secret_key_env");
    }

    @Test
    void shouldRefuseAKeyWhereItsVariableNameBelongsWithoutRepeatingIt() {
        List<String> errors =
                errors(
                        withS3("access_key_env: LAKE_KEY", "secret_key_env: wJalrXUtnFEMI/K7MDENG"),
                        KEYS);

        assertThat(errors)
                .containsExactly(
                        "sluice.yaml:7: storage.s3.secret_key_env: must be the name of an"
                                + " environment variable (letters, digits and '_', not starting"
                                + " with a digit), not the key itself");
    }

    @Test
    void shouldRequireTheNamedVariablesToBeSetWithoutRepeatingTheirNames() {
        String yaml = withS3("access_key_env: LAKE_KEY", "secret_key_env: WJALRXUTNFEMIK7MDENG");

        assertThat(errors(yaml, Map.of("LAKE_KEY", "AKIAEXAMPLEKEY")))
                .containsExactly(
                        "sluice.yaml:7: storage.s3.secret_key_env: names an environment variable"
                                + " that is not set");
        assertThat(errors(yaml, Map.of("LAKE_KEY", "", "WJALRXUTNFEMIK7MDENG", "x")))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.access_key_env: names an environment variable"
                                + " that is empty");
    }

    @Test
    void shouldSuggestTheKeyForAMisspeltOne() {
        assertThat(errors(withS3("endpont: https://minio:9000")))
                .containsExactly(
                        "sluice.yaml:6: storage.s3.endpont: unknown key (did you mean"
                                + " 'endpoint'?)");
    }

    @Test
    void shouldSubstituteVariablesInTheBlock() {
        S3Config s3 =
                parse(
                                withS3("endpoint: ${S3_ENDPOINT}", "path_style_access: true"),
                                Map.of("S3_ENDPOINT", "http://10.0.0.7:9000"))
                        .storage()
                        .s3OrDefaults();

        assertThat(s3.endpoint()).contains(URI.create("http://10.0.0.7:9000"));
    }
}
