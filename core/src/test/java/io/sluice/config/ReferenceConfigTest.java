package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReferenceConfigTest {
    private static final Path REFERENCE = Path.of("../sluice.yaml");

    private static SluiceConfig reference() {
        return SluiceConfig.load(REFERENCE, TestConfigs.shopSchemas(), Map.of());
    }

    private static FeatureConfig feature(SluiceConfig config, String view, String name) {
        return config.featureView(view).orElseThrow().features().stream()
                .filter(f -> f.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void shouldLoadTheReferenceFile() {
        SluiceConfig config = reference();

        assertThat(config.kafka().bootstrap()).isEqualTo("localhost:9092");
        assertThat(config.kafka().group()).isEqualTo("sluice");
        assertThat(config.kafka().properties()).containsEntry("isolation.level", "read_committed");
        assertThat(config.tables())
                .extracting(TableConfig::name, TableConfig::topic, TableConfig::schemaName)
                .containsExactly(
                        tuple("page_views", "shop.page_views", "PageView"),
                        tuple("add_to_cart", "shop.add_to_cart", "AddToCart"),
                        tuple("purchases", "shop.purchases", "Purchase"));
        assertThat(config.table("add_to_cart").orElseThrow().format()).isEqualTo(TableFormat.AVRO);
        assertThat(config.table("page_views").orElseThrow().format()).isEqualTo(TableFormat.JSON);
        assertThat(config.tables())
                .allSatisfy(
                        t -> {
                            assertThat(t.key()).isEqualTo("user_id");
                            assertThat(t.id()).isEqualTo("event_id");
                            assertThat(t.eventTime()).isEqualTo("event_time");
                            assertThat(t.buckets()).isEqualTo(16);
                            assertThat(t.schema().getName()).isEqualTo(t.schemaName());
                        });
    }

    @Test
    void shouldApplyTableDefaultsWhereTheFileIsSilent() {
        TableConfig pageViews = reference().table("page_views").orElseThrow();

        assertThat(pageViews.allowedLateness()).isEqualTo(Duration.ofMinutes(15));
        assertThat(pageViews.maxOutOfOrderness()).isEqualTo(Duration.ofSeconds(30));
        assertThat(pageViews.idleness()).isEqualTo(Duration.ofMinutes(1));
        assertThat(pageViews.strict()).isFalse();
        assertThat(pageViews.maxRecordBytes()).isEqualTo(65536);
        assertThat(pageViews.maxFuture()).isEqualTo(Duration.ofHours(1));
        assertThat(pageViews.maxPast()).isEqualTo(Duration.ofDays(30));
        assertThat(pageViews.dedupRetention()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void shouldUseEveryAggregationAcrossTheReferenceViews() {
        SluiceConfig config = reference();

        assertThat(config.featureViews()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(
                        config.featureViews().stream()
                                .flatMap(v -> v.features().stream())
                                .map(FeatureConfig::agg)
                                .collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(Aggregation.values());
    }

    @Test
    void shouldResolveDefaultAndDeclaredFeatureTypes() {
        SluiceConfig config = reference();

        assertThat(feature(config, "user_purchases", "purchases_1h").type())
                .isEqualTo(FeatureType.LONG);
        assertThat(feature(config, "user_purchases", "spend_24h").type())
                .isEqualTo(FeatureType.FLOAT);
        assertThat(feature(config, "user_purchases", "max_price_24h").type())
                .isEqualTo(FeatureType.FLOAT);
        assertThat(feature(config, "user_purchases", "avg_price_7d").type())
                .isEqualTo(FeatureType.DOUBLE);
        assertThat(feature(config, "user_cart", "cart_quantity_24h").type())
                .isEqualTo(FeatureType.LONG);
        assertThat(feature(config, "user_activity", "last_device").type())
                .isEqualTo(FeatureType.STRING);
        assertThat(feature(config, "user_activity", "last_category").type())
                .isEqualTo(FeatureType.STRING);
    }

    @Test
    void shouldUseTheViewTtlAsEffectiveWindowOfLastWithoutWindow() {
        FeatureConfig last = feature(reference(), "user_purchases", "last_category");

        assertThat(last.window()).isEmpty();
        assertThat(last.effectiveWindow()).isEqualTo(Duration.ofDays(7));
        assertThat(feature(reference(), "user_purchases", "purchases_1h").effectiveWindow())
                .isEqualTo(Duration.ofHours(1));
    }

    @Test
    void shouldResolveRelativeRootAgainstTheConfigFilesDirectory() {
        SluiceConfig config = reference();
        Path dir = REFERENCE.toAbsolutePath().normalize().getParent();

        assertThat(config.rootUri()).isEqualTo(URI.create(dir.resolve("data").toUri().toString()));
        assertThat(config.tablePath("raw", "purchases"))
                .isEqualTo(URI.create(config.rootUri() + "/raw/purchases"));
        assertThat(config.online().store()).isEqualTo(OnlineStoreType.SQLITE);
        assertThat(config.online().sqlitePath()).isEqualTo(dir.resolve("data/online.db"));
        assertThat(config.checkpoint().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.compact().memoryPercent()).isEqualTo(25);
    }

    /** The README's example of a bad compact.memory_percent, on the reference file's line. */
    @Test
    void shouldNameTheLineAndKeyOfABadMemoryPercentInTheReferenceFile(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(
                file,
                Files.readString(REFERENCE).replace("memory_percent: 25 ", "memory_percent: 95 "));

        ConfigException e =
                catchThrowableOfType(
                        ConfigException.class,
                        () -> SluiceConfig.load(file, TestConfigs.shopSchemas(), Map.of()));

        assertThat(e.errors())
                .containsExactly(
                        file + ":22: compact.memory_percent: must be between 1 and 80, got 95");
    }

    @Test
    void shouldRegisterTheTablesInAnIcebergCatalogNextToTheLake(@TempDir Path dir)
            throws IOException {
        Files.copy(REFERENCE, dir.resolve("sluice.yaml"));

        SluiceConfig config = SluiceConfig.load(dir.resolve("sluice.yaml"));

        assertThat(config.catalog().type()).isEqualTo(CatalogType.SQLITE);
        assertThat(config.catalog().sqlitePath()).isEqualTo(dir.resolve("data/catalog.db"));
    }

    @Test
    void shouldResolveSchemasFromTheRegistryByDefault(@TempDir Path dir) throws IOException {
        Files.copy(REFERENCE, dir.resolve("sluice.yaml"));

        SluiceConfig config = SluiceConfig.load(dir.resolve("sluice.yaml"));

        assertThat(config.tables()).hasSize(3);
        assertThat(config.table("purchases").orElseThrow().schema().getField("coupon")).isNotNull();
    }

    @Test
    void shouldReportAnUnreadableFileAsAConfigException(@TempDir Path dir) {
        Path missing = dir.resolve("sluice.yaml");

        ConfigException e =
                catchThrowableOfType(
                        ConfigException.class,
                        () -> SluiceConfig.load(missing, TestConfigs.shopSchemas(), Map.of()));

        assertThat(e.errors()).containsExactly(missing + ": cannot read (NoSuchFileException)");
    }
}
