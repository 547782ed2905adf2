package io.sluice.app;

import picocli.CommandLine.Option;

/** The {@code --runs} option of the benchmarks; each benchmark sets its own default. */
final class Runs {

    @Option(
            names = "--runs",
            description = "Runs of each side; medians are reported (default ${DEFAULT-VALUE}).")
    int count;

    Runs(int defaultCount) {
        this.count = defaultCount;
    }

    Runs() {
        this(3);
    }
}
