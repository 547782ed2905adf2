package io.sluice.serving;

import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code sluice serve}: a thin HTTP router over the same {@link FeatureReader} that {@code sluice
 * get} uses ({@link Endpoints}), on as many event loops as it is given, each connection on one of
 * them.
 */
public final class FeatureServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(FeatureServer.class.getName());

    private final ServeMetrics metrics;
    private final Drain drain;
    private final Vertx vertx;
    private final int port;
    private final int eventLoops;
    private final AtomicBoolean closed = new AtomicBoolean();

    private FeatureServer(
            ServeMetrics metrics, Drain drain, Vertx vertx, int port, int eventLoops) {
        this.metrics = metrics;
        this.drain = drain;
        this.vertx = vertx;
        this.port = port;
        this.eventLoops = eventLoops;
    }

    /** One of the HTTP servers, on an event loop of its own, with a router of its own. */
    private static final class Listener extends AbstractVerticle {
        private final HttpServerOptions options;
        private final Endpoints endpoints;
        private final AtomicInteger actualPort;

        Listener(HttpServerOptions options, Endpoints endpoints, AtomicInteger actualPort) {
            this.options = options;
            this.endpoints = endpoints;
            this.actualPort = actualPort;
        }

        @Override
        public void start(Promise<Void> started) {
            vertx.createHttpServer(options)
                    .requestHandler(endpoints.router(vertx))
                    .listen()
                    .onSuccess(
                            server -> {
                                actualPort.set(server.actualPort());
                                started.complete();
                            })
                    .onFailure(started::fail);
        }
    }

    /**
     * Starts serving {@code catalog} from {@code store} on {@code host:port} (0: any free), with an
     * event loop per core this JVM may use.
     */
    public static FeatureServer start(
            Catalog catalog, OnlineStore store, Limits limits, String host, int port)
            throws IOException {
        return start(
                catalog, store, limits, host, port, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Starts serving {@code catalog} from {@code store} on {@code host:port} (0: any free), its
     * connections spread over {@code eventLoops} event loops.
     */
    public static FeatureServer start(
            Catalog catalog,
            OnlineStore store,
            Limits limits,
            String host,
            int port,
            int eventLoops)
            throws IOException {
        if (eventLoops < 1) {
            throw new IllegalArgumentException("event loops must be at least 1, got " + eventLoops);
        }
        Vertx vertx =
                Vertx.vertx(
                        new VertxOptions()
                                .setWorkerPoolSize(16)
                                .setEventLoopPoolSize(
                                        Math.max(
                                                eventLoops,
                                                VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE)));
        HttpServerOptions options =
                new HttpServerOptions()
                        .setHost(host)
                        // A negative port is Vert.x's random port that the instances share; 0
                        // would give each instance a port of its own.
                        .setPort(port == 0 ? -1 : port)
                        .setIdleTimeout(limits.idleTimeoutSeconds())
                        .setIdleTimeoutUnit(TimeUnit.SECONDS)
                        .setMaxInitialLineLength(8192)
                        .setMaxHeaderSize(16384);
        ServeMetrics metrics = new ServeMetrics(Endpoints.PATHS);
        Drain drain = new Drain();
        metrics.inFlight(drain);
        Endpoints endpoints = new Endpoints(catalog, store, limits, metrics, drain, vertx);
        AtomicInteger actualPort = new AtomicInteger();
        try {
            // One HTTP server per event loop on the same port, Vert.x's way of using every core:
            // it hands each new connection to the next one. A server created once would handle
            // every connection on one thread, however many cores the pod has.
            vertx.deployVerticle(
                            () -> new Listener(options, endpoints, actualPort),
                            new DeploymentOptions().setInstances(eventLoops))
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            new FeatureServer(metrics, drain, vertx, port, eventLoops).close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause =
                    e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String reason = cause.getMessage() == null ? cause.toString() : cause.getMessage();
            throw new IOException("cannot listen on " + host + ":" + port + ": " + reason, cause);
        }
        return new FeatureServer(metrics, drain, vertx, actualPort.get(), eventLoops);
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** How many event loops its connections are spread over. */
    public int eventLoops() {
        return eventLoops;
    }

    /**
     * Stops the server the way a rolling update needs: from now on {@code /ready} answers 503 and
     * every response closes its connection; for {@code delay} the server goes on accepting (while
     * the pod leaves its Service's endpoints, which is not instant), then it waits up to {@code
     * timeout} for the requests in flight, then closes. Returns how many requests were still in
     * flight when it closed (0 unless the timeout passed).
     */
    public int shutdown(Duration delay, Duration timeout) throws InterruptedException {
        drain.start();
        // A fixed time, not a condition: nothing tells a pod when the Service's endpoints and the
        // proxies behind them have forgotten it (Kubernetes' own answer is a preStop sleep).
        Thread.sleep(delay.toMillis());
        int cut = drain.awaitIdle(timeout);
        close();
        return cut;
    }

    /** Requests whose responses have not ended yet. */
    public int inFlight() {
        return drain.inFlight();
    }

    /** Closes at once: requests in flight get no answer ({@link #shutdown} waits for them). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the server: " + e);
        }
        metrics.close();
    }
}
