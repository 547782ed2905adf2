package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.features.offline.ConsistencyCheck;
import io.sluice.features.offline.ConsistencyReport;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice check}: online values against the same features computed from the warehouse. */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Compare online feature values with the same features computed offline from the"
                    + " warehouse, for sampled entities and times within retention.",
            "Reports per feature: checked, mismatched, missing online, missing offline and the"
                    + " largest difference; exits 1 on any mismatch or missing value."
        })
final class CheckCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Option(
            names = "--samples",
            defaultValue = "100",
            description = "(entity, time) samples per feature view (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(
            names = "--seed",
            defaultValue = "7",
            description = "Sampling seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call() throws Exception {
        if (samples < 1) {
            throw new IllegalArgumentException("--samples must be at least 1");
        }
        SluiceConfig cfg = config.load();
        PrintWriter out = spec.commandLine().getOut();
        return print(run(cfg, samples, seed, out), out) == 0 ? 0 : 1;
    }

    /** Runs the check, with its progress on {@code out}. */
    static List<ConsistencyReport> run(SluiceConfig cfg, int samples, long seed, PrintWriter out)
            throws IOException {
        try (OnlineStore store = OnlineStores.open(cfg.online());
                Progress progress =
                        Progress.start(
                                "check",
                                "samples",
                                (long) samples * cfg.featureViews().size(),
                                out)) {
            return new ConsistencyCheck(cfg, store, System::currentTimeMillis)
                    .run(samples, seed, progress::update);
        }
    }

    /** Prints the report table; returns the number of problems (mismatches and missing values). */
    static long print(List<ConsistencyReport> reports, PrintWriter out) {
        out.printf(
                "%-40s %8s %10s %14s %15s %12s%n",
                "feature",
                "checked",
                "mismatched",
                "missing_online",
                "missing_offline",
                "largest_diff");
        long checked = 0;
        long problems = 0;
        for (ConsistencyReport r : reports) {
            out.printf(
                    "%-40s %8d %10d %14d %15d %12.3g%n",
                    r.feature,
                    r.checked,
                    r.mismatched,
                    r.missingOnline,
                    r.missingOffline,
                    r.largestDifference);
            checked += r.checked;
            problems += r.problems();
        }
        out.printf("check: %,d values checked, %,d mismatched or missing%n", checked, problems);
        out.flush();
        return problems;
    }
}
