package io.sluice.config;

import static io.sluice.config.TestConfigs.BASE_DIR;
import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static io.sluice.config.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocationsTest {
    /** An explicit SQLite path, so that non-local roots need no further settings. */
    private static SluiceConfig withRoot(String root) {
        return parse(
                VALID.replace(
                        "root: file:./data", "root: " + root + "\nonline: { path: /var/db }"));
    }

    private static String withOnline(String online) {
        return VALID.replace("tables:", "online: " + online + "\ntables:");
    }

    @Test
    void shouldResolveARelativeFileRootAgainstTheBaseDirectory() {
        assertThat(withRoot("file:./data").rootUri())
                .isEqualTo(URI.create("file:///srv/sluice/data"));
        assertThat(withRoot("file:../lake/").rootUri()).isEqualTo(URI.create("file:///srv/lake"));
    }

    @Test
    void shouldTreatABarePathAsAFile() {
        assertThat(withRoot("data").rootUri()).isEqualTo(URI.create("file:///srv/sluice/data"));
        assertThat(withRoot("/var/lake").rootUri()).isEqualTo(URI.create("file:///var/lake"));
    }

    @Test
    void shouldKeepAbsoluteFileRoots() {
        assertThat(withRoot("file:/var/lake").rootUri()).isEqualTo(URI.create("file:///var/lake"));
        assertThat(withRoot("file:///var/lake").rootUri())
                .isEqualTo(URI.create("file:///var/lake"));
    }

    @Test
    void shouldBuildTablePathsUnderTheRoot() {
        SluiceConfig local = withRoot("file:./data");
        SluiceConfig s3 = withRoot("s3://acme-lake/sluice/");

        assertThat(local.tablePath("raw", "purchases"))
                .isEqualTo(URI.create("file:///srv/sluice/data/raw/purchases"));
        assertThat(s3.rootUri()).isEqualTo(URI.create("s3://acme-lake/sluice"));
        assertThat(s3.tablePath("raw", "purchases"))
                .isEqualTo(URI.create("s3://acme-lake/sluice/raw/purchases"));
        assertThat(withRoot("s3://acme-lake").tablePath("curated", "purchases"))
                .isEqualTo(URI.create("s3://acme-lake/curated/purchases"));
    }

    @Test
    void shouldRefuseTablePathSegmentsThatCouldEscapeTheRoot() {
        StorageConfig storage = withRoot("data").storage();

        assertThatThrownBy(() -> storage.tablePath("raw", "../etc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'../etc' is not a valid path segment");
        assertThatThrownBy(() -> storage.tablePath("raw/x", "purchases"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectUnsupportedSchemes() {
        assertThat(errors(VALID.replace("root: file:./data", "root: hdfs://nn/lake")))
                .containsExactly(
                        "sluice.yaml:4: storage.root: unsupported scheme 'hdfs' (use file:<path>,"
                                + " s3://bucket/prefix or a plain path)");
    }

    @Test
    void shouldRejectS3WithoutAValidBucket() {
        assertThat(errors(VALID.replace("root: file:./data", "root: s3:///lake")))
                .containsExactly(
                        "sluice.yaml:4: storage.root: needs a valid bucket name, as in"
                                + " s3://bucket/prefix");
        assertThat(errors(VALID.replace("root: file:./data", "root: s3://b-ucket/a/../b")))
                .hasSize(1);
    }

    @Test
    void shouldPutTheSqliteDatabaseUnderALocalRootByDefault() {
        OnlineConfig online = parse(VALID).online();

        assertThat(online.store()).isEqualTo(OnlineStoreType.SQLITE);
        assertThat(online.sqlitePath()).isEqualTo(Path.of("/srv/sluice/data/online.db"));
    }

    @Test
    void shouldResolveAnExplicitSqlitePathAgainstTheBaseDirectory() {
        OnlineConfig online =
                parse(withOnline("{ store: sqlite, path: state/online.db }")).online();

        assertThat(online.uri()).isEqualTo(BASE_DIR.resolve("state/online.db").toUri());
    }

    @Test
    void shouldLoadAnObjectStoreLakeWithoutAnOnlineStoreAndNameTheKeyWhenOneIsOpened() {
        for (String yaml :
                List.of(
                        withOnline("{ store: sqlite }")
                                .replace("root: file:./data", "root: s3://acme-lake"),
                        VALID.replace("root: file:./data", "root: s3://acme-lake"))) {
            OnlineConfig online = parse(yaml).online();

            assertThat(online.isSet()).isFalse();
            assertThatThrownBy(online::uri)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "online.path: required when storage.root is not a local file:"
                                    + " location (set online.path, or online.store: redis with"
                                    + " online.uri, or pass --online)");
            assertThatThrownBy(online::sqlitePath).hasMessageStartingWith("online.path: required");
        }
    }

    @Test
    void shouldRequireARedisUriForRedis() {
        assertThat(errors(withOnline("{ store: redis }")))
                .containsExactly("sluice.yaml:5: online.uri: required when store is redis");
        assertThat(errors(withOnline("{ store: redis, uri: 'http://cache:6379' }")))
                .containsExactly(
                        "sluice.yaml:5: online.uri: must be a redis:// or rediss:// URI with a"
                                + " host, or a Redis Cluster's seed nodes as"
                                + " redis-cluster://host:port,host:port");
        assertThat(errors(withOnline("{ store: redis, uri: 'redis-cluster://a:1,b' }")))
                .as("a seed without a port")
                .hasSize(1);
    }

    @Test
    void shouldAcceptARedisClusterUri() {
        OnlineConfig online =
                parse(
                                withOnline(
                                        "{ store: redis, uri:"
                                            + " 'redis-cluster://10.0.0.1:6379,10.0.0.2:6379' }"))
                        .online();

        assertThat(online.store()).isEqualTo(OnlineStoreType.REDIS);
        assertThat(online.uri().getRawAuthority()).isEqualTo("10.0.0.1:6379,10.0.0.2:6379");
    }

    @Test
    void shouldTakeTheSameRedisUrisFromAnOptionAsFromTheFile() {
        URI cluster = URI.create("rediss-cluster://user:pw@10.0.0.1:6379,10.0.0.2:6379");
        assertThat(OnlineConfig.redis("--online", cluster).uri()).isEqualTo(cluster);
        assertThat(OnlineConfig.redis("--online", URI.create("redis://cache:6379")).store())
                .isEqualTo(OnlineStoreType.REDIS);
        assertThatThrownBy(
                        () ->
                                OnlineConfig.redis(
                                        "--online", URI.create("http://user:secret@cache:6379")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--online: " + OnlineConfig.REDIS_URI_RULE)
                .message()
                .doesNotContain("secret");
        assertThatThrownBy(
                        () -> OnlineConfig.redis("--online", URI.create("redis-cluster://a:1,b")))
                .as("a seed without a port")
                .hasMessageStartingWith("--online: must be");
    }

    @Test
    void shouldAcceptARedisUri() {
        OnlineConfig online =
                parse(withOnline("{ store: redis, uri: 'redis://cache:6379/0' }")).online();

        assertThat(online.store()).isEqualTo(OnlineStoreType.REDIS);
        assertThat(online.uri()).isEqualTo(URI.create("redis://cache:6379/0"));
        assertThatThrownBy(online::sqlitePath).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldRejectSettingsOfTheOtherStore() {
        assertThat(errors(withOnline("{ store: sqlite, uri: 'redis://cache' }")))
                .containsExactly("sluice.yaml:5: online.uri: only used with store redis");
        assertThat(errors(withOnline("{ store: redis, uri: 'redis://cache', path: x.db }")))
                .containsExactly("sluice.yaml:5: online.path: only used with store sqlite");
    }

    @Test
    void shouldResolveTheCheckpointDirectory() {
        String yaml = VALID.replace("tables:", "checkpoint: { interval: 1m, dir: chk }\ntables:");

        CheckpointConfig checkpoint = parse(yaml).checkpoint();

        assertThat(checkpoint.interval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(checkpoint.dir()).contains(URI.create("file:///srv/sluice/chk"));
    }
}
