package io.sluice.app.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One scenario of {@link ServeBenchmark} over its runs: the HTTP and raw-read percentiles of each
 * run, what stopped or failed, and the scenario's rows and footnote in the report.
 */
final class ServeFigures {

    /** An HTTP load as the client saw it, and the server's histogram of the same requests. */
    record Http(OpenLoop.Result client, PrometheusHistogram server) {
        double serverMillis(double q) {
            return server.quantile(q) * 1e3;
        }
    }

    final String name;
    final List<Double> p50 = new ArrayList<>();
    final List<Double> p99 = new ArrayList<>();
    final List<Double> p999 = new ArrayList<>();
    final List<Double> serverP99 = new ArrayList<>();
    final List<Double> rawP99 = new ArrayList<>();
    final List<Double> ratio = new ArrayList<>();
    final List<Double> answered = new ArrayList<>();
    final List<Double> rawAnswered = new ArrayList<>();
    final List<String> stopped = new ArrayList<>();
    int stoppedBefore;
    long requests;
    long errors;

    /** The first failure of each load that had one. */
    final List<String> failures = new ArrayList<>();

    long unfinished;
    long serverCounted;

    ServeFigures(String name) {
        this.name = name;
    }

    void add(Http http, OpenLoop.Result raw) {
        stoppedBefore = stopped.size();
        OpenLoop.Result client = http.client();
        p50.add(client.millis(50));
        p99.add(client.millis(99));
        p999.add(client.millis(99.9));
        serverP99.add(http.serverMillis(0.99));
        rawP99.add(raw.millis(99));
        ratio.add(http.serverMillis(0.99) / raw.millis(99));
        answered.add(client.answeredPerSecond());
        rawAnswered.add(raw.answeredPerSecond());
        requests += client.calls() + raw.calls();
        errors += client.errors() + raw.errors();
        for (var side : List.of(Map.entry("HTTP", client), Map.entry("raw read", raw))) {
            if (side.getValue().firstError() != null) {
                failures.add(
                        String.format(
                                "run %d %s: %s",
                                p50.size(), side.getKey(), side.getValue().firstError()));
            }
        }
        unfinished += client.unfinished() + raw.unfinished();
        serverCounted += http.server().count();
        for (var side : List.of(Map.entry("HTTP", client), Map.entry("raw read", raw))) {
            if (side.getValue().overloaded()) {
                stopped.add(
                        String.format(
                                "run %d %s after %,d of %,d",
                                p50.size(),
                                side.getKey(),
                                side.getValue().calls(),
                                side.getValue().planned()));
            }
        }
    }

    String last() {
        int i = p50.size() - 1;
        return String.format(
                "HTTP p50 %.3f p99 %.3f p99.9 %.3f ms, server p99 %.3f ms, raw read p99 %.3f"
                        + " ms, server ÷ raw %.2f; answered %.1f/s over HTTP, %.1f/s raw%s",
                p50.get(i),
                p99.get(i),
                p999.get(i),
                serverP99.get(i),
                rawP99.get(i),
                ratio.get(i),
                answered.get(i),
                rawAnswered.get(i),
                stoppedBefore == stopped.size()
                        ? ""
                        : "; stopped for overload: "
                                + stopped.subList(stoppedBefore, stopped.size()));
    }

    void rows(List<String> lines, double httpGoal, String compare, double serverGoal, int rate) {
        row(lines, name + ": HTTP p50", p50, "");
        row(lines, name + ": HTTP p99", p99, goal(httpGoal, p99) + compare);
        row(lines, name + ": HTTP p99.9", p999, "");
        row(
                lines,
                name + ": server p99 (`/metrics`)",
                serverP99,
                serverGoal > 0 ? goal(serverGoal, serverP99) : "");
        row(lines, name + ": raw store read p99 (baseline)", rawP99, "");
        lines.add(
                String.format(
                        "| **%s: server p99 ÷ raw read p99** | **%.1f** | %s | |",
                        name, BenchmarkReport.median(ratio), BenchmarkReport.runs(ratio, "%.1f")));
        lines.add(
                String.format(
                        "| %s: answered per second, HTTP | %,.1f | %s | offered: %,d |",
                        name,
                        BenchmarkReport.median(answered),
                        BenchmarkReport.runs(answered, "%,.1f"),
                        rate));
        lines.add(
                String.format(
                        "| %s: answered per second, raw store reads | %,.1f | %s | offered:"
                                + " %,d |",
                        name,
                        BenchmarkReport.median(rawAnswered),
                        BenchmarkReport.runs(rawAnswered, "%,.1f"),
                        rate));
    }

    String footnote() {
        String text =
                String.format(
                        "%s: %,d requests (HTTP and baseline, all runs), %d errors, %d left"
                                + " unanswered after the %d s drain; the server's histogram"
                                + " counted %,d HTTP requests.",
                        name,
                        requests,
                        errors,
                        unfinished,
                        ServeBenchmark.DRAIN.toSeconds(),
                        serverCounted);
        if (!failures.isEmpty()) {
            text += " First failures: " + String.join("; ", failures) + ".";
        }
        if (!stopped.isEmpty()) {
            text +=
                    String.format(
                            " **Overloaded**: the load stopped when a request was %d s late (%s"
                                    + " requests sent), so its percentiles are of the requests"
                                    + " sent, lower bounds of what the full load would have seen;"
                                    + " the answered rate is what it could do.",
                            ServeBenchmark.GIVE_UP.toSeconds(), String.join(", ", stopped));
        }
        return text;
    }

    /** "≤ N ms", and whether the median meets it. */
    private static String goal(double limitMs, List<Double> ms) {
        return String.format(
                "≤ %.0f ms — %s",
                limitMs, BenchmarkReport.median(ms) <= limitMs ? "met" : "not met");
    }

    private static void row(List<String> lines, String measure, List<Double> ms, String goal) {
        lines.add(
                String.format(
                        "| %s | %.3f ms | %s | %s |",
                        measure,
                        BenchmarkReport.median(ms),
                        BenchmarkReport.runs(ms, "%.3f"),
                        goal));
    }
}
