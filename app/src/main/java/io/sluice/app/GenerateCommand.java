package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.GeneratorStats;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice generate}: seeded shop events into any Kafka. */
@Command(
        name = "generate",
        mixinStandardHelpOptions = true,
        description =
                "Produce seeded shop events (Zipf keys, out-of-order, duplicates, invalid records)"
                        + " to the tables' topics.")
final class GenerateCommand implements Callable<Integer> {

    @Mixin ConfigFile config;

    @Option(
            names = "--events",
            defaultValue = "100000",
            description = "Records to produce (default ${DEFAULT-VALUE}).")
    long events;

    @Option(
            names = "--rate",
            defaultValue = "0",
            description = "Records per second; 0 for unthrottled (default).")
    double rate;

    @Option(
            names = "--seed",
            defaultValue = "42",
            description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--start",
            description =
                    "Event time of the first event, e.g. 2026-11-21T00:00:00Z (default: 7 hours"
                            + " ago, on the hour).")
    Instant start;

    @Option(
            names = "--duplicate-rate",
            defaultValue = "0.02",
            description = "Fraction re-sent (default ${DEFAULT-VALUE}).")
    double duplicateRate;

    @Option(
            names = "--invalid-rate",
            defaultValue = "0.02",
            description = "Fraction invalid (default ${DEFAULT-VALUE}).")
    double invalidRate;

    @Option(
            names = "--late-rate",
            defaultValue = "0.001",
            description = "Fraction arriving an hour late (default ${DEFAULT-VALUE}).")
    double lateRate;

    @Override
    public Integer call() {
        if (events < 0) {
            throw new IllegalArgumentException("--events must be >= 0, got " + events);
        }
        if (rate < 0) {
            throw new IllegalArgumentException("--rate must be >= 0, got " + rate);
        }
        requireFraction("--duplicate-rate", duplicateRate);
        requireFraction("--invalid-rate", invalidRate);
        requireFraction("--late-rate", lateRate);
        SluiceConfig cfg = config.load();
        GeneratorOptions options =
                options(events, seed, start, duplicateRate, invalidRate, lateRate);
        GeneratorStats stats;
        try (KafkaLoader loader = new KafkaLoader(cfg.kafka().bootstrap(), rate)) {
            stats = new Generator(cfg.tables(), options).run(loader);
        }
        System.out.printf(
                "generated %d records: %d valid, %d duplicates, %d invalid, %d late%n",
                stats.generated(),
                stats.valid(),
                stats.duplicates(),
                stats.invalid(),
                stats.late());
        return 0;
    }

    private static void requireFraction(String option, double value) {
        if (!(value >= 0 && value < 1)) {
            throw new IllegalArgumentException(option + " must be in [0, 1), got " + value);
        }
    }

    static GeneratorOptions options(
            long events, long seed, Instant start, double duplicates, double invalid, double late) {
        GeneratorOptions options =
                GeneratorOptions.defaults(events, seed).withRates(duplicates, invalid, late);
        return start == null ? options : options.withStart(start);
    }
}
