package io.sluice.serving;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What {@code GET /metrics} reports, in Prometheus's text format: every request's latency by
 * endpoint and status, the requests in flight, and the online store's reads and failed reads.
 */
final class ServeMetrics implements AutoCloseable {

    /**
     * The lowest latency bucket: Micrometer's timers start at 1 ms, which would put every read of a
     * fast server in one bucket; from 50 µs, p99 of sub-millisecond requests can be read off.
     */
    private static final Duration SMALLEST_BUCKET = Duration.ofNanos(50_000);

    /** The status label of a request whose connection closed before it was answered. */
    static final String CLOSED = "closed";

    private final Set<String> endpoints;
    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Timer> requestTimers = new ConcurrentHashMap<>();
    private final Timer storeReads;
    private final Counter storeErrors;

    /** Requests to other paths than {@code endpoints} are counted as {@code other}. */
    ServeMetrics(Set<String> endpoints) {
        this.endpoints = endpoints;
        storeReads =
                Timer.builder("sluice.serve.store.reads")
                        .description(
                                "Online store reads and their latency: a request's round trips"
                                        + " (with Redis, also the evaluation of the answers as"
                                        + " they arrive) and /ready's probes")
                        .publishPercentileHistogram()
                        .minimumExpectedValue(SMALLEST_BUCKET)
                        .register(registry);
        storeErrors =
                Counter.builder("sluice.serve.store.errors")
                        .description("Online store reads that failed")
                        .register(registry);
    }

    /** Reports {@code drain}'s requests in flight, for the server it belongs to. */
    void inFlight(Drain drain) {
        Gauge.builder("sluice.serve.requests.in.flight", drain, Drain::inFlight)
                .description("Requests received whose responses have not ended")
                .strongReference(true)
                .register(registry);
    }

    /** A handler of every route, after the drain's: times the request until its response ends. */
    void measure(RoutingContext ctx) {
        long start = System.nanoTime();
        String endpoint;
        try {
            String path = ctx.normalizedPath();
            endpoint = endpoints.contains(path) ? path : "other";
        } catch (IllegalArgumentException malformed) { // refused next, as a 400
            endpoint = "other";
        }
        String counted = endpoint;
        ctx.addEndHandler(
                done ->
                        requestTimer(
                                        counted,
                                        // A connection closed before any answer: no status.
                                        ctx.response().ended()
                                                ? Integer.toString(ctx.response().getStatusCode())
                                                : CLOSED)
                                .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
        ctx.next();
    }

    /** The latency histogram of one endpoint and status, registered on first use. */
    private Timer requestTimer(String endpoint, String status) {
        return requestTimers.computeIfAbsent(
                endpoint + ' ' + status,
                k ->
                        Timer.builder("sluice.serve.requests")
                                .description("HTTP requests by endpoint and status code")
                                .tag("endpoint", endpoint)
                                .tag("status", status)
                                .publishPercentileHistogram()
                                .minimumExpectedValue(SMALLEST_BUCKET)
                                .register(registry));
    }

    /** A store read that took {@code nanos}, answered or not. */
    void storeRead(long nanos) {
        storeReads.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A store read that failed. */
    void storeError() {
        storeErrors.increment();
    }

    /** Every meter, in Prometheus's text format. */
    String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        registry.close();
    }
}
