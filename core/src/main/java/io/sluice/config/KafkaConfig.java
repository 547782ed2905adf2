package io.sluice.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How every job reaches Kafka. Bootstrap servers and the consumer group are first-class because
 * every job needs them; anything else is passed through untouched in {@code properties}.
 *
 * @param bootstrap comma-separated {@code host:port} list
 * @param group consumer group id, default {@code sluice}
 * @param properties extra client properties, in file order
 */
public record KafkaConfig(String bootstrap, String group, Map<String, String> properties) {
    public KafkaConfig {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(group, "group");
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }
}
