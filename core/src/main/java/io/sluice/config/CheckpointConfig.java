package io.sluice.config;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Flink checkpointing knobs that operators tune per deployment rather than per job.
 *
 * @param interval time between checkpoints, default 10s
 * @param dir absolute checkpoint storage URI; empty means Flink's own configuration decides
 */
public record CheckpointConfig(Duration interval, Optional<URI> dir) {
    public CheckpointConfig {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(dir, "dir");
    }
}
