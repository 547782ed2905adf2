package io.sluice.config;

import static io.sluice.config.TestConfigs.BASE_DIR;
import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static io.sluice.config.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogConfigTest {

    private static String withCatalog(String... lines) {
        return VALID + "catalog:\n" + "  " + String.join("\n  ", lines) + "\n";
    }

    private static String s3Root(String yaml) {
        return yaml.replace("root: file:./data", "root: s3://lake/sluice");
    }

    @Test
    void shouldDefaultToSqliteNextToAFileLake() {
        CatalogConfig catalog = parse(VALID).catalog();

        assertThat(catalog.type()).isEqualTo(CatalogType.SQLITE);
        assertThat(catalog.sqlitePath()).isEqualTo(BASE_DIR.resolve("data/catalog.db"));
        assertThat(catalog.namespace()).isEqualTo("sluice");
        Map<String, String> props = catalog.icebergProperties(URI.create("file:/srv/warehouse"));
        assertThat(props)
                .containsEntry("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
                .containsEntry("uri", "jdbc:sqlite:/srv/sluice/data/catalog.db")
                .containsEntry("warehouse", "file:/srv/warehouse/_iceberg");
    }

    @Test
    void shouldHaveNoCatalogByDefaultOnAnObjectStoreLake() {
        assertThat(parse(s3Root(VALID)).catalog().isEnabled()).isFalse();
    }

    @Test
    void shouldTakeALocalPathForAnObjectStoreLake() {
        CatalogConfig catalog = parse(s3Root(withCatalog("path: state/catalog.db"))).catalog();

        assertThat(catalog.type()).isEqualTo(CatalogType.SQLITE);
        assertThat(catalog.sqlitePath()).isEqualTo(BASE_DIR.resolve("state/catalog.db"));
    }

    @Test
    void shouldReadARestCatalog() {
        CatalogConfig catalog =
                parse(
                                withCatalog(
                                        "type: rest",
                                        "uri: https://polaris.example.com/api/catalog",
                                        "warehouse: ml",
                                        "namespace: shop",
                                        "properties: { credential: 'id:secret' }"))
                        .catalog();

        assertThat(catalog.type()).isEqualTo(CatalogType.REST);
        assertThat(catalog.namespace()).isEqualTo("shop");
        assertThat(catalog.icebergProperties(URI.create("s3://lake/sluice/warehouse")))
                .containsEntry("catalog-impl", "org.apache.iceberg.rest.RESTCatalog")
                .containsEntry("uri", "https://polaris.example.com/api/catalog")
                .containsEntry("warehouse", "ml")
                .containsEntry("credential", "id:secret");
    }

    @Test
    void shouldReadTheSnapshotRetention() {
        assertThat(parse(VALID).catalog().snapshotRetention())
                .isEqualTo(CatalogConfig.DEFAULT_SNAPSHOT_RETENTION);
        assertThat(parse(withCatalog("snapshot_retention: 2d")).catalog().snapshotRetention())
                .isEqualTo(java.time.Duration.ofDays(2));
        assertThat(errors(withCatalog("snapshot_retention: soon")))
                .hasSize(1)
                .allSatisfy(
                        e ->
                                assertThat(e)
                                        .startsWith("sluice.yaml:14: catalog.snapshot_retention:"));
    }

    @Test
    void shouldTurnTheCatalogOff() {
        assertThat(parse(withCatalog("type: none")).catalog()).isEqualTo(CatalogConfig.NONE);
    }

    @Test
    void shouldNameTheKeyOfEachMistake() {
        // VALID has 12 lines; the catalog section starts on line 13.
        assertThat(errors(withCatalog("type: hive")))
                .containsExactly(
                        "sluice.yaml:14: catalog.type: must be one of sqlite, rest, none, got"
                                + " 'hive'");
        assertThat(errors(withCatalog("type: rest")))
                .containsExactly("sluice.yaml:14: catalog.uri: required");
        assertThat(errors(withCatalog("type: rest", "uri: thrift://metastore:9083")))
                .containsExactly(
                        "sluice.yaml:15: catalog.uri: must be the REST catalog's http:// or"
                                + " https:// endpoint");
        assertThat(errors(withCatalog("uri: https://polaris:8181")))
                .containsExactly(
                        "sluice.yaml:14: catalog.uri: only used with catalog.type rest (the"
                                + " sqlite catalog takes path)");
        assertThat(errors(withCatalog("type: rest", "uri: http://r:8181", "path: c.db")))
                .containsExactly(
                        "sluice.yaml:16: catalog.path: only used with catalog.type sqlite (the"
                                + " rest catalog takes uri)");
        assertThat(errors(s3Root(withCatalog("type: sqlite"))))
                .containsExactly(
                        "sluice.yaml:14: catalog.path: required for the sqlite catalog when"
                                + " storage.root is not a local file: location");
        assertThat(errors(withCatalog("properties: { uri: 'jdbc:sqlite:x' }")))
                .hasSize(1)
                .allSatisfy(e -> assertThat(e).contains("catalog.properties.uri: set catalog.uri"));
        assertThat(errors(withCatalog("namespace: 'my shop'")))
                .hasSize(1)
                .allSatisfy(e -> assertThat(e).contains("catalog.namespace: 'my shop'"));
    }
}
