package io.sluice.app.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The serving benchmark's HTTP client: non-blocking (a send returns at once), keep-alive, on one
 * event loop of its own. Requests beyond its connections wait in it, which an open-loop load counts
 * against their latency.
 */
final class LoadClient implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    private final HttpClient http;

    /** Its own connection, so a scrape never queues behind the load's requests. */
    private final HttpClient scraper;

    private final RequestOptions post;
    private final RequestOptions metrics;

    /**
     * A client that posts to {@code path} and scrapes {@code /metrics} on 127.0.0.1:{@code port}.
     */
    LoadClient(int port, String path, int connections) {
        http =
                vertx.createHttpClient(
                        new HttpClientOptions().setKeepAlive(true),
                        new PoolOptions().setHttp1MaxSize(connections));
        scraper =
                vertx.createHttpClient(
                        new HttpClientOptions().setKeepAlive(true),
                        new PoolOptions().setHttp1MaxSize(1));
        post =
                new RequestOptions()
                        .setMethod(HttpMethod.POST)
                        .setHost("127.0.0.1")
                        .setPort(port)
                        .setURI(path)
                        .putHeader("content-type", "application/json");
        metrics =
                new RequestOptions()
                        .setMethod(HttpMethod.GET)
                        .setHost("127.0.0.1")
                        .setPort(port)
                        .setURI("/metrics");
    }

    /** Posts a JSON {@code body}: the response body, or a failed stage unless the status is 200. */
    CompletionStage<Buffer> post(Buffer body) {
        return send(http, post, body).toCompletionStage();
    }

    /**
     * Posts a JSON {@code body} as load: reads the whole response but keeps none of it (a batch's
     * is hundreds of kilobytes, whose copies would be garbage that the server in this JVM pays
     * for); a failed stage unless the status is 200.
     */
    CompletionStage<Void> load(Buffer body) {
        return http.request(post)
                .compose(request -> request.send(body))
                .compose(
                        response ->
                                response.statusCode() == 200
                                        // No data handler: the body's chunks are read and dropped.
                                        ? response.end()
                                        : refused(response))
                .toCompletionStage();
    }

    /** The server's Prometheus text, waited for. */
    String scrape() throws Exception {
        return send(scraper, metrics, null)
                .toCompletionStage()
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS)
                .toString();
    }

    private static Future<Buffer> send(HttpClient client, RequestOptions options, Buffer body) {
        return client.request(options)
                .compose(request -> body == null ? request.send() : request.send(body))
                .compose(
                        response ->
                                response.statusCode() == 200 ? response.body() : refused(response));
    }

    /** A failed future naming a response's status and body. */
    private static <T> Future<T> refused(HttpClientResponse response) {
        return response.body()
                .compose(b -> Future.failedFuture("HTTP " + response.statusCode() + ": " + b));
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
