package io.sluice.config;

/**
 * Settings of the compact job that depend on the machine it runs on rather than on the data.
 *
 * @param memoryPercent the share of the JVM's maximum heap that one compacting hour may fill with
 *     its rows, shared by the compact job's parallel subtasks; an hour whose rows take more is
 *     sorted externally, through sorted runs spilled to local disk. Default {@value
 *     #DEFAULT_MEMORY_PERCENT}.
 */
public record CompactConfig(int memoryPercent) {

    public static final int DEFAULT_MEMORY_PERCENT = 25;
    public static final int MIN_MEMORY_PERCENT = 1;
    public static final int MAX_MEMORY_PERCENT = 80;

    public static final CompactConfig DEFAULTS = new CompactConfig(DEFAULT_MEMORY_PERCENT);

    public CompactConfig {
        if (memoryPercent < MIN_MEMORY_PERCENT || memoryPercent > MAX_MEMORY_PERCENT) {
            throw new IllegalArgumentException(
                    "compact.memory_percent must be between "
                            + MIN_MEMORY_PERCENT
                            + " and "
                            + MAX_MEMORY_PERCENT
                            + ", got "
                            + memoryPercent);
        }
    }
}
