package io.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A set of features computed from one table and keyed by that table's key. Aggregates are kept as
 * tiles of {@link #tile()} so that every window is a whole number of tiles.
 *
 * @param name view name
 * @param entity entity key field, equal to the source table's key
 * @param source name of the source table
 * @param tile aggregation granularity, whole seconds
 * @param ttl how long values are kept; a multiple of tile and at least every window
 * @param features the features, in file order
 */
public record FeatureViewConfig(
        String name,
        String entity,
        String source,
        Duration tile,
        Duration ttl,
        List<FeatureConfig> features) {
    public FeatureViewConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(tile, "tile");
        Objects.requireNonNull(ttl, "ttl");
        features = List.copyOf(features);
    }
}
