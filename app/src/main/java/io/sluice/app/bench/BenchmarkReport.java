package io.sluice.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Keeps {@code docs/benchmarks.md} as one section per benchmark, so each benchmark command rewrites
 * only its own figures.
 */
public final class BenchmarkReport {

    private static final String HEADER =
            "# Benchmarks\n\n"
                + "Written by the benchmark commands (`./sluice bench …`); do not edit by hand.\n"
                + "Every figure is a ratio against a baseline measured in the same run, on the same"
                + " data, on the same machine, because these machines are noisy. Times are medians"
                + " of the runs given.\n";

    private BenchmarkReport() {}

    /** Replaces (or appends) the section called {@code name} with {@code body}. */
    public static void update(Path file, String name, String body) throws IOException {
        String begin = "<!-- bench:" + name + " -->";
        String end = "<!-- /bench:" + name + " -->";
        String text = Files.exists(file) ? Files.readString(file) : HEADER;
        String section = begin + "\n" + body.strip() + "\n" + end;
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from >= 0 && to > from) {
            text = text.substring(0, from) + section + text.substring(to + end.length());
        } else {
            text = text.stripTrailing() + "\n\n" + section + "\n";
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text);
    }

    /** Every run's figure, formatted, as a list for a table's "runs" column. */
    public static String runs(List<Double> values, String format) {
        return values.stream().map(v -> String.format(format, v)).toList().toString();
    }

    /**
     * A row of a "| measure | median | runs |" table: {@code label}, the median of {@code values}
     * (bold when the label starts bold) and every run's figure, each in {@code format}.
     */
    public static String row(String label, String format, List<Double> values) {
        String median = String.format(format, median(values));
        return "| "
                + label
                + " | "
                + (label.startsWith("**") ? "**" + median + "**" : median)
                + " | "
                + runs(values, format)
                + " |";
    }

    /** The median of some measurements. */
    public static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
