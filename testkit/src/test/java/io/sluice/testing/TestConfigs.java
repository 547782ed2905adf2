package io.sluice.testing;

import io.sluice.config.SluiceConfig;
import io.sluice.config.StorageConfig;
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
            return parse(Files.readString(referenceFile()), root, bootstrap, topicPrefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The name of {@link #shopWithItems}'s second entity's view: item sales, keyed by {@code
     * item_id}.
     */
    public static final String ITEM_VIEW = "item_sales";

    /**
     * {@link #shop} with a second entity, for tests only: table {@code item_purchases} (the
     * Purchase schema on its own topic, keyed by {@code item_id}, 8 buckets) and its view {@code
     * item_sales} ({@code sales_1h}: count over 1h; {@code revenue_24h}: sum of price over 24h as a
     * double; {@code last_buyer_country}: last country; ttl 1d), so a training set can join a user
     * view and an item view.
     */
    public static SluiceConfig shopWithItems(Path root, String bootstrap, String topicPrefix) {
        String table =
                """
                  - name: item_purchases
                    topic: shop.item_purchases
                    schema: Purchase
                    format: json
                    event_time: event_time
                    key: item_id
                    id: event_id
                    buckets: 8

                """;
        String view =
                """

                  - name: item_sales
                    entity: item_id
                    source: item_purchases
                    tile: 1m
                    ttl: 1d
                    features:
                      - { name: sales_1h, agg: count, window: 1h }
                      - { name: revenue_24h, agg: sum, field: price, window: 24h, type: double }
                      - { name: last_buyer_country, agg: last, field: country }
                """;
        try {
            String yaml = Files.readString(referenceFile());
            int views = yaml.indexOf("\nfeature_views:");
            if (views < 0) {
                throw new IllegalStateException("the reference config has no feature_views");
            }
            yaml = yaml.substring(0, views + 1) + table + yaml.substring(views + 1);
            return parse(yaml.stripTrailing() + "\n" + view, root, bootstrap, topicPrefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code config} with its lake at {@code storage} (an S3 lake, say) instead. */
    public static SluiceConfig onStorage(SluiceConfig config, StorageConfig storage) {
        return new SluiceConfig(
                config.kafka(),
                storage,
                config.online(),
                config.checkpoint(),
                config.tables(),
                config.featureViews());
    }

    private static SluiceConfig parse(
            String reference, Path root, String bootstrap, String topicPrefix) {
        String yaml = reference.replace("topic: shop.", "topic: " + topicPrefix + ".shop.");
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
    }
}
