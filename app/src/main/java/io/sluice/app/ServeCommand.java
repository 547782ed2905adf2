package io.sluice.app;

import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.serving.Catalog;
import io.sluice.serving.FeatureServer;
import io.sluice.serving.Limits;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice serve}: the HTTP feature server, in Feast's request and response shape. */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description =
                "Serve online features over HTTP: POST /get-online-features (Feast's request and"
                        + " response shape), GET /features, /health, /ready and /metrics"
                        + " (Prometheus). Runs until stopped.")
final class ServeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Option(names = "--port", defaultValue = "6566", description = "Port (default: 6566).")
    int port;

    @Option(
            names = "--host",
            defaultValue = "0.0.0.0",
            description = "Address to listen on (default: 0.0.0.0).")
    String host;

    @Option(
            names = "--online",
            description =
                    "Read this Redis (redis://host:port, or a cluster's seed nodes as"
                            + " redis-cluster://host:port,host:port) instead of the config's"
                            + " online store.")
    URI online;

    @Option(
            names = "--max-entities",
            defaultValue = "1000",
            description = "Entity keys per request (default: 1000).")
    int maxEntities;

    @Option(
            names = "--max-features",
            defaultValue = "200",
            description = "Features per request (default: 200).")
    int maxFeatures;

    @Option(
            names = "--max-body-bytes",
            defaultValue = "1048576",
            description = "Request body size; larger bodies get 413 (default: 1 MiB).")
    long maxBodyBytes;

    @Option(
            names = "--idle-timeout",
            defaultValue = "30",
            description = "Seconds after which an idle connection is closed (default: 30).")
    int idleTimeoutSeconds;

    @Option(
            names = "--request-timeout",
            defaultValue = "10",
            description =
                    "Seconds a request's body may take to arrive after its headers; then 408"
                            + " and the connection is closed (default: 10).")
    int requestTimeoutSeconds;

    @Option(
            names = "--event-loops",
            description =
                    "Event loops the connections are spread over (default: the cores this JVM may"
                            + " use).")
    Integer eventLoops;

    @Option(
            names = "--shutdown-delay",
            defaultValue = "0",
            description =
                    "Seconds it goes on serving after SIGTERM with /ready answering 503, so that"
                            + " a load balancer stops sending to it first (default: 0; give the"
                            + " time your endpoints take to update, for example 5 on Kubernetes).")
    int shutdownDelaySeconds;

    @Option(
            names = "--drain-timeout",
            defaultValue = "10",
            description =
                    "Seconds it then waits for the requests in flight before it closes"
                            + " (default: 10).")
    int drainTimeoutSeconds;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be between 0 and 65535, got " + port);
        }
        if (shutdownDelaySeconds < 0 || drainTimeoutSeconds < 0) {
            throw new IllegalArgumentException(
                    "--shutdown-delay and --drain-timeout must not be negative, got "
                            + shutdownDelaySeconds
                            + " and "
                            + drainTimeoutSeconds);
        }
        int loops = eventLoops == null ? Runtime.getRuntime().availableProcessors() : eventLoops;
        if (loops < 1) {
            throw new IllegalArgumentException("--event-loops must be at least 1, got " + loops);
        }
        Limits limits;
        try {
            limits =
                    new Limits(
                            maxEntities,
                            maxFeatures,
                            maxBodyBytes,
                            idleTimeoutSeconds,
                            requestTimeoutSeconds);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--max-entities, --max-features, --max-body-bytes, --idle-timeout and"
                            + " --request-timeout must each be at least 1");
        }
        SluiceConfig cfg = config.load();
        OnlineConfig onlineConfig = cfg.online();
        if (online != null) {
            onlineConfig = OnlineConfig.redis("--online", online);
        }
        if (cfg.featureViews().isEmpty()) {
            throw new IllegalArgumentException(config + " defines no feature_views to serve");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch drained = new CountDownLatch(1);
        PrintWriter out = spec.commandLine().getOut();
        try (OnlineStore store = OnlineStores.open(onlineConfig);
                FeatureServer server = listen(Catalog.of(cfg), store, limits, loops)) {
            out.printf(
                    "sluice serve: listening on http://%s:%d (%d feature views, %s store, %d event"
                            + " loops)%n",
                    host,
                    server.port(),
                    cfg.featureViews().size(),
                    onlineConfig.store(),
                    server.eventLoops());
            out.flush();
            // SIGTERM (Kubernetes stopping the pod) or Ctrl-C: the JVM exits once its shutdown
            // hooks return, so this one holds the exit until the server has drained.
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(
                                    () -> {
                                        stopped.countDown();
                                        try {
                                            drained.await();
                                        } catch (InterruptedException e) {
                                            Thread.currentThread().interrupt();
                                        }
                                    },
                                    "sluice-serve-drain"));
            stopped.await();
            out.printf(
                    "sluice serve: stopping: /ready answers 503; serving %d s more, then waiting"
                            + " up to %d s for %d requests in flight%n",
                    shutdownDelaySeconds, drainTimeoutSeconds, server.inFlight());
            out.flush();
            int cut =
                    server.shutdown(
                            Duration.ofSeconds(shutdownDelaySeconds),
                            Duration.ofSeconds(drainTimeoutSeconds));
            out.printf(
                    "sluice serve: stopped (%s)%n",
                    cut == 0
                            ? "every request answered"
                            : cut + " requests in flight were cut off by --drain-timeout");
            out.flush();
        } finally {
            drained.countDown();
        }
        return 0;
    }

    /** The server; an address it cannot listen on is an option error, naming the options. */
    private FeatureServer listen(Catalog catalog, OnlineStore store, Limits limits, int loops) {
        try {
            return FeatureServer.start(catalog, store, limits, host, port, loops);
        } catch (IOException e) {
            throw new IllegalArgumentException("--host, --port: " + e.getMessage(), e);
        }
    }
}
