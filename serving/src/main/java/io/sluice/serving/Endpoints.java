package io.sluice.serving;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What {@link FeatureServer}'s endpoints answer, on whichever event loop took the connection. A
 * Redis store is read from that loop without waiting (its client is asynchronous); a store whose
 * reads block (SQLite), and {@code /ready}, on Vert.x's worker pool. Every refusal is a JSON {@code
 * {"status": …, "message": …}} without a stack trace.
 */
final class Endpoints {

    private static final System.Logger LOG = System.getLogger(FeatureServer.class.getName());
    static final Set<String> PATHS =
            Set.of("/get-online-features", "/features", "/health", "/ready", "/metrics");

    /** The key /ready reads: any read that the store answers proves it is up. */
    private static final String PROBE_ENTITY = "__sluice_ready_probe__";

    private final ObjectMapper mapper = FeastResponse.mapper();
    private final Catalog catalog;
    private final OnlineStore store;
    private final FeatureReader reader;
    private final Limits limits;
    private final ServeMetrics metrics;
    private final Drain drain;
    private final Vertx vertx;
    private final Replies replies;

    Endpoints(
            Catalog catalog,
            OnlineStore store,
            Limits limits,
            ServeMetrics metrics,
            Drain drain,
            Vertx vertx) {
        this.catalog = catalog;
        this.store = store;
        this.limits = limits;
        this.metrics = metrics;
        this.drain = drain;
        this.vertx = vertx;
        this.reader = new FeatureReader(store, catalog.views(), System::currentTimeMillis);
        this.replies = new Replies(mapper, limits);
    }

    /** A router of every endpoint, for one HTTP server. */
    Router router(Vertx vertx) {
        Router router = Router.router(vertx);
        router.route().handler(drain::track);
        router.route().handler(metrics::measure);
        router.route().handler(this::validPath);
        ReceiveDeadline deadline =
                new ReceiveDeadline(vertx, limits.requestTimeoutSeconds(), replies);
        router.route().handler(deadline::start);
        router.route().handler(BodyHandler.create(false).setBodyLimit(limits.maxBodyBytes()));
        router.route().handler(deadline::received);
        router.post("/get-online-features").handler(this::getOnlineFeatures);
        router.get("/features").handler(ctx -> replies.json(ctx, 200, catalog.toJson()));
        router.get("/health").handler(ctx -> replies.json(ctx, 200, replies.status("live")));
        router.get("/ready").handler(this::ready);
        router.get("/metrics")
                .handler(
                        ctx ->
                                ctx.response()
                                        .putHeader(
                                                "content-type",
                                                "text/plain; version=0.0.4; charset=utf-8")
                                        .end(metrics.scrape()));
        router.route().failureHandler(this::connectionClosed);
        for (int code : new int[] {400, 404, 405, 413, 500}) {
            router.errorHandler(
                    code, ctx -> replies.refuse(ctx, code, replies.defaultMessage(ctx, code)));
        }
        return router;
    }

    /**
     * A request whose connection closed before it arrived whole has no one left to answer: its
     * client went away, or its receive deadline answered 408 and closed it. Neither is the server's
     * error, which Vert.x would otherwise log each time as an unhandled one.
     */
    private void connectionClosed(RoutingContext ctx) {
        if (ctx.failure() instanceof HttpClosedException) {
            return;
        }
        ctx.next();
    }

    /** A path with a malformed escape ({@code /%zz}) is refused before anything reads it. */
    private void validPath(RoutingContext ctx) {
        try {
            ctx.normalizedPath();
        } catch (IllegalArgumentException e) {
            replies.refuse(ctx, 400, "the path is not a valid URL path: " + e.getMessage());
            return;
        }
        ctx.next();
    }

    private void getOnlineFeatures(RoutingContext ctx) {
        OnlineRequest request;
        long now = System.currentTimeMillis();
        try {
            byte[] body =
                    ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
            request = OnlineRequest.parse(body, mapper, catalog, limits, now);
        } catch (BadRequest e) {
            replies.refuse(ctx, e.status(), e.getMessage());
            return;
        }
        Instant at = request.at() == null ? Instant.ofEpochMilli(now) : request.at();
        Function<List<FeatureReader.Vector>, Buffer> encode =
                vectors -> {
                    // Written straight into the buffer the response is sent from: a batch's is
                    // hundreds of kilobytes, which a byte array and its copies allocated twice.
                    ByteBuf bytes =
                            Unpooled.buffer(FeastResponse.sizeHint(request, vectors.size()));
                    try {
                        FeastResponse.write(
                                mapper, request, vectors, new ByteBufOutputStream(bytes));
                        return Buffer.buffer(bytes);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e); // a server error (500), not a 503
                    }
                };
        Consumer<Buffer> answer =
                body ->
                        ctx.response()
                                .setStatusCode(200)
                                .putHeader("content-type", "application/json")
                                .end(body);
        if (request.at() != null || !store.readsWithoutBlocking()) {
            // The response is encoded on the worker too: a batch's is thousands of values, and
            // the event loop serves every connection. A chosen `at` also reads how far the
            // features job has written its views, on the worker: such reads are for looking
            // back, not the latency-bound read at now.
            readStore(
                    ctx,
                    () ->
                            request.at() == null
                                    ? reader.read(request.features(), request.entities(), at)
                                    : reader.readAsOf(request.features(), request.entities(), at),
                    encode,
                    answer);
            return;
        }
        // Redis: the event loop sends the read and, when its answers come, evaluates and encodes
        // them; no thread waits on the store, and a request crosses two threads fewer than on a
        // worker (whose hand-overs were most of a one-entity request's latency).
        Context loop = vertx.getOrCreateContext();
        long start = System.nanoTime();
        Future<List<FeatureReader.Vector>> read;
        try {
            read =
                    Future.fromCompletionStage(
                            reader.readAsync(
                                    request.features(),
                                    request.entities(),
                                    at,
                                    task -> loop.runOnContext(v -> task.run())),
                            loop);
        } catch (RuntimeException e) {
            read = Future.failedFuture(e);
        }
        answer(
                ctx,
                read.andThen(done -> metrics.storeRead(System.nanoTime() - start)).map(encode),
                answer);
    }

    private void ready(RoutingContext ctx) {
        if (drain.draining()) {
            // Shutting down: out of the Service, whatever the store says.
            replies.json(ctx, 503, replies.status("draining"));
            return;
        }
        String view = catalog.views().get(0).name();
        readStore(
                ctx,
                () ->
                        store.readTiles(
                                List.of(
                                        new OnlineStore.TileKey(
                                                view, PROBE_ENTITY, OnlineStore.Level.FINE, 0)),
                                System.currentTimeMillis()),
                found -> found,
                answer -> replies.json(ctx, 200, replies.status("ready")));
    }

    /**
     * Runs a store read and the encoding of its answer on a worker, then {@code answer} on the
     * event loop; a failed read is a 503 that names the store's complaint.
     */
    private <T, R> void readStore(
            RoutingContext ctx, Callable<T> read, Function<T, R> encode, Consumer<R> answer) {
        answer(
                ctx,
                vertx.<R>executeBlocking(
                        () -> {
                            long start = System.nanoTime();
                            T found;
                            try {
                                found = read.call();
                            } finally {
                                metrics.storeRead(System.nanoTime() - start);
                            }
                            return encode.apply(found);
                        },
                        false),
                answer);
    }

    /** {@code answer} with what {@code read} gives; a failed store read is a 503 naming why. */
    private <R> void answer(RoutingContext ctx, Future<R> read, Consumer<R> answer) {
        read.onSuccess(answer::accept)
                .onFailure(
                        failure -> {
                            Throwable e =
                                    failure instanceof CompletionException
                                                    && failure.getCause() != null
                                            ? failure.getCause()
                                            : failure;
                            if (!(e instanceof IOException)) {
                                ctx.fail(500, e);
                                return;
                            }
                            metrics.storeError();
                            LOG.log(System.Logger.Level.WARNING, "online store read failed: " + e);
                            replies.refuse(
                                    ctx,
                                    503,
                                    "the online store is not answering; try again: "
                                            + Replies.reason(e));
                        });
    }
}
