package io.sluice.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One served feature. The output type is always resolved (defaults applied), so the feature job and
 * the serving side cannot disagree about it.
 *
 * @param name feature (column) name, unique within its view
 * @param agg the aggregation
 * @param field source field; empty only for {@code count}
 * @param window the window as written; empty only for {@code last}
 * @param type resolved output type
 * @param effectiveWindow {@code window}, or the view's ttl when no window was given
 */
public record FeatureConfig(
        String name,
        Aggregation agg,
        Optional<String> field,
        Optional<Duration> window,
        FeatureType type,
        Duration effectiveWindow) {
    public FeatureConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(agg, "agg");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(effectiveWindow, "effectiveWindow");
    }
}
