package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureRefs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainingPlanGroupsTest {

    @Test
    void viewsOfOneEntityOverDifferentlyBucketedTablesTakePassesOfTheirOwn(@TempDir Path dir)
            throws Exception {
        // The reference config, plus the purchases again in a table of 8 buckets and its view.
        String yaml = Files.readString(Path.of("..", "sluice.yaml"));
        int views = yaml.indexOf("\nfeature_views:");
        yaml =
                yaml.substring(0, views + 1)
                        + """
                          - name: purchases8
                            topic: shop.purchases8
                            schema: Purchase
                            format: json
                            event_time: event_time
                            key: user_id
                            id: event_id
                            buckets: 8

                        """
                        + yaml.substring(views + 1).stripTrailing()
                        + """

                          - name: user_purchases8
                            entity: user_id
                            source: purchases8
                            tile: 1m
                            ttl: 1d
                            features:
                              - { name: purchases_1h, agg: count, window: 1h }
                        """;
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, yaml);
        SluiceConfig config = SluiceConfig.load(file);
        Map<String, ViewDef> defs =
                FeatureRefs.views(config).stream()
                        .collect(Collectors.toMap(ViewDef::name, Function.identity()));
        PlannedView purchases = planned(config, defs, "user_purchases", "purchases");
        PlannedView purchases8 = planned(config, defs, "user_purchases8", "purchases8");
        PlannedView activity = planned(config, defs, "user_activity", "page_views");

        List<TrainingPlan.Group> groups =
                TrainingPlan.groups(List.of(purchases, purchases8, activity));

        // Same entity, but a bucket of the 16-bucket tables is not one of the 8-bucket table's.
        assertThat(groups).hasSize(2);
        assertThat(groups.get(0).entity()).isEqualTo("user_id");
        assertThat(groups.get(0).views()).containsExactly(purchases, activity);
        assertThat(groups.get(1).entity()).isEqualTo("user_id");
        assertThat(groups.get(1).views()).containsExactly(purchases8);
        String key = "u000042";
        assertThat(purchases8.bucket(key)).isEqualTo(purchases.bucket(key) % 8);
    }

    private static PlannedView planned(
            SluiceConfig config, Map<String, ViewDef> defs, String view, String table) {
        return new PlannedView(defs.get(view), config.table(table).orElseThrow(), "user_id");
    }
}
