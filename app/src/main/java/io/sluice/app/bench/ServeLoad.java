package io.sluice.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.OnlineStore;
import io.vertx.core.buffer.Buffer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One request shape of {@link ServeBenchmark}: its bodies over HTTP, and the same reads straight
 * from the store ({@link ServeBenchmark#rawRead}), each run on an open loop ({@link OpenLoop}).
 */
final class ServeLoad {
    private static final String METRIC = "sluice_serve_requests_seconds";

    /** How long a scrape may take to count every answered request. */
    static final Duration SCRAPE_WAIT = Duration.ofSeconds(5);

    private static final Map<String, String> SERIES =
            Map.of("endpoint", ServeBenchmark.PATH, "status", "200");

    private final LoadClient client;
    private final List<Buffer> bodies;
    private final OnlineStore store;
    private final ViewDef view;
    private final List<List<String>> entities;
    private final Duration duration;
    private final Duration step;
    private final PrintStream out;
    private final ObjectMapper mapper = new ObjectMapper();

    ServeLoad(
            LoadClient client,
            List<Buffer> bodies,
            OnlineStore store,
            ViewDef view,
            List<List<String>> entities,
            Duration duration,
            Duration step,
            PrintStream out) {
        this.duration = duration;
        this.step = step;
        this.out = out;
        this.client = client;
        this.bodies = bodies;
        this.store = store;
        this.view = view;
        this.entities = entities;
    }

    CompletionStage<Buffer> post(int i) {
        return client.post(bodies.get(i % bodies.size()));
    }

    CompletionStage<Void> load(int i) {
        return client.load(bodies.get(i % bodies.size()));
    }

    CompletionStage<?> raw(int i) {
        return ServeBenchmark.rawRead(
                store, view, entities.get(i % entities.size()), System.currentTimeMillis());
    }

    /** Fails unless the first request answers 200 with values for every feature. */
    void check(int features) throws Exception {
        JsonNode answer =
                mapper.readTree(post(0).toCompletableFuture().get(30, TimeUnit.SECONDS).getBytes());
        JsonNode results = answer.path("results");
        int present = 0;
        for (JsonNode column : results) {
            for (JsonNode s : column.path("statuses")) {
                present += s.asText().equals("PRESENT") ? 1 : 0;
            }
        }
        int expected = (features + 1) * entities.get(0).size();
        if (results.size() != features + 1 || present < expected / 2) {
            throw new IllegalStateException(
                    "the server's answer is not what the benchmark expects ("
                            + present
                            + " of "
                            + expected
                            + " values present): "
                            + answer.toString()
                                    .substring(0, Math.min(500, answer.toString().length())));
        }
    }

    /** {@code length} of HTTP load at {@code rate}, with the server's view of it. */
    ServeFigures.Http http(int rate, Duration length) {
        PrometheusHistogram before = serverHistogram(client);
        OpenLoop.Result result =
                OpenLoop.run(
                        this::load, rate, length, ServeBenchmark.GIVE_UP, ServeBenchmark.DRAIN);
        long answered = result.calls() - result.errors() - result.unfinished();
        PrometheusHistogram server =
                counting(() -> serverHistogram(client).minus(before), answered, SCRAPE_WAIT);
        return new ServeFigures.Http(result, server);
    }

    /**
     * The server records a request when its response has ended, which may be after the client has
     * read it: a scrape right after the load can miss its last answers. So {@code scrape} again
     * until the histogram counts {@code answered} requests, for {@code wait} at most; the last
     * scrape otherwise (the report's footnote gives the count).
     */
    static PrometheusHistogram counting(
            Supplier<PrometheusHistogram> scrape, long answered, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        PrometheusHistogram server = scrape.get();
        while (server.count() < answered && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            server = scrape.get();
        }
        return server;
    }

    /** {@code length} of raw store reads at {@code rate}. */
    OpenLoop.Result baseline(int rate) {
        return OpenLoop.run(
                this::raw, rate, duration, ServeBenchmark.GIVE_UP, ServeBenchmark.DRAIN);
    }

    /** Scenario c's test of one rate: HTTP p99 within the limit, no errors, none left open. */
    boolean passes(int rate) {
        OpenLoop.run(
                this::load,
                rate,
                ServeBenchmark.STEP_WARM_UP,
                ServeBenchmark.GIVE_UP,
                ServeBenchmark.DRAIN);
        OpenLoop.Result result =
                OpenLoop.run(this::load, rate, step, ServeBenchmark.GIVE_UP, ServeBenchmark.DRAIN);
        boolean pass = result.clean() && result.millis(99) <= ServeBenchmark.CAPACITY_P99_MS;
        out.printf(
                "  c) %,d requests/s: p99 %.2f ms, %d errors, %d unfinished%s: %s%n",
                rate,
                result.millis(99),
                result.errors(),
                result.unfinished(),
                result.overloaded() ? ", stopped for overload" : "",
                pass ? "pass" : "fail");
        return pass;
    }

    /** 200s of {@code PATH} in the server's histogram of request latency, as scraped now. */
    private static PrometheusHistogram serverHistogram(LoadClient client) {
        try {
            return PrometheusHistogram.parse(client.scrape(), METRIC, SERIES);
        } catch (Exception e) {
            throw new IllegalStateException("cannot scrape the server's /metrics: " + e, e);
        }
    }
}
