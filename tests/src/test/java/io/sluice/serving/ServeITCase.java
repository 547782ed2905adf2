package io.sluice.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.features.online.SqliteOnlineStore;
import io.sluice.features.online.TileWrites;
import io.sluice.features.testing.ForwardingOnlineStore;
import io.sluice.features.testing.LogCapture;
import io.sluice.redis.LocalRedis;
import io.sluice.testing.TestConfigs;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feature server over real stores, called through HTTP: Feast's shape with the values the
 * reader returns, every bad request refused with its field named while the server keeps answering,
 * and a Redis outage answered with 503 until Redis is back.
 */
class ServeITCase {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final List<String> FEATURES =
            List.of(
                    "user_purchases:purchases_7d",
                    "user_purchases:spend_24h",
                    "user_purchases:max_price_24h",
                    "user_purchases:last_category",
                    "user_activity:page_views_1h");

    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
    private final long now = System.currentTimeMillis();
    private final Limits limits = new Limits(5, 8, 4096, 2, 1);
    private URI base;

    @Test
    void servesWhatTheReaderReadsAndRefusesBadRequests(@TempDir Path dir) throws Exception {
        Catalog catalog = Catalog.of(TestConfigs.shop(dir, "localhost:1", "t"));
        try (OnlineStore store = new SqliteOnlineStore(dir.resolve("online.db"));
                FeatureServer server =
                        FeatureServer.start(catalog, store, limits, "127.0.0.1", 0)) {
            writeTiles(catalog, store);
            base = URI.create("http://127.0.0.1:" + server.port());

            assertThat(get("/health").statusCode()).isEqualTo(200);
            assertThat(get("/ready").statusCode()).isEqualTo(200);
            JsonNode views = mapper.readTree(get("/features").body()).get("feature_views");
            assertThat(views.findValuesAsText("name")).contains("user_purchases", "spend_24h");
            JsonNode purchases = views.get(2);
            assertThat(purchases.get("entity").asText()).isEqualTo("user_id");
            assertThat(purchases.at("/features/2").toString())
                    .isEqualTo(
                            "{\"name\":\"spend_24h\",\"ref\":\"user_purchases:spend_24h\","
                                    + "\"agg\":\"sum\",\"field\":\"price\",\"window\":\"PT24H\","
                                    + "\"type\":\"float\"}");

            long at = now - MINUTE;
            List<String> entities = List.of("u1", "u2", "never-seen");
            HttpResponse<String> ok = post(request(FEATURES, entities, at, true));
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            FeatureReader reader =
                    new FeatureReader(store, catalog.views(), System::currentTimeMillis);
            assertSameAsReader(
                    mapper.readTree(ok.body()),
                    reader.readAsOf(refs(), entities, Instant.ofEpochMilli(at)),
                    entities);
            JsonNode body = mapper.readTree(ok.body());
            assertThat(body.at("/results/1/values/0").asLong()).as("u1's purchases").isPositive();
            assertThat(body.at("/results/3/statuses/1").asText())
                    .as("u2 bought nothing in 24h: no max")
                    .isEqualTo("NULL_VALUE");
            for (int column = 1; column <= FEATURES.size(); column++) {
                assertThat(body.at("/results/" + column + "/statuses/2").asText())
                        .as("the never-seen entity in column " + column)
                        .isEqualTo("NOT_FOUND");
                assertThat(body.at("/results/" + column + "/values/2").isNull()).isTrue();
            }

            HttpResponse<String> old =
                    post(request(FEATURES, entities, now - 8 * 24 * HOUR, false));
            assertThat(mapper.readTree(old.body()).at("/results/1/statuses/0").asText())
                    .isEqualTo("OUTSIDE_MAX_AGE");
            assertThat(mapper.readTree(old.body()).at("/metadata/feature_names/1").asText())
                    .isEqualTo("purchases_7d");

            refusesBadRequests();

            HttpResponse<String> again = post(request(FEATURES, entities, at, true));
            assertThat(again.statusCode()).isEqualTo(200);
            assertThat(again.body()).isEqualTo(ok.body());

            String metrics = get("/metrics").body();
            assertThat(metrics)
                    .contains(
                            "sluice_serve_requests_seconds_count{endpoint=\"/get-online-features\","
                                    + "status=\"200\"} 3\n",
                            "sluice_serve_requests_seconds_count{endpoint=\"/get-online-features\","
                                    + "status=\"400\"}",
                            "sluice_serve_requests_seconds_count{endpoint=\"/get-online-features\","
                                    + "status=\"413\"} 1\n",
                            "sluice_serve_requests_seconds_count{endpoint=\"/get-online-features\","
                                    + "status=\"408\"} 2\n",
                            "sluice_serve_requests_seconds_count{endpoint=\"other\","
                                    + "status=\"400\"} 1\n",
                            "sluice_serve_requests_seconds_bucket{endpoint=\"/health\"",
                            "sluice_serve_store_reads_seconds_count",
                            "sluice_serve_store_errors_total 0.0");

            // The features job has written user_activity only up to before `at`: its feature is
            // INCOMPLETE there, the others answered; without `at` (now) it is answered too.
            store.markWritten("user_activity", 1, 0, at - 2);
            JsonNode behind = mapper.readTree(post(request(FEATURES, entities, at, true)).body());
            int activity = FEATURES.indexOf("user_activity:page_views_1h") + 1;
            for (int e = 0; e < entities.size(); e++) {
                assertThat(behind.at("/results/" + activity + "/statuses/" + e).asText())
                        .isEqualTo("INCOMPLETE");
                assertThat(behind.at("/results/" + activity + "/values/" + e).isNull()).isTrue();
                assertThat(behind.at("/results/1/statuses/" + e).asText())
                        .isEqualTo(body.at("/results/1/statuses/" + e).asText());
            }
            JsonNode latest = mapper.readTree(post(request(FEATURES, entities, null, true)).body());
            assertThat(latest.at("/results/" + activity + "/statuses/0").asText())
                    .isEqualTo("NOT_FOUND");
        }
    }

    private void refusesBadRequests() throws Exception {
        String entities = "\"entities\": {\"user_id\": [\"u1\"]}";
        assertRefused(400, post("{\"features\": ["), "the body is not valid JSON");
        assertRefused(400, post("[1, 2]"), "the body must be a JSON object");
        assertRefused(400, post("{" + entities + "}"), "features: missing");
        String spend = "{\"features\": [\"user_purchases:spend_24h\"], ";
        assertRefused(
                400,
                post(spend + entities + ", \"full_feature_names\": \"yes\"}"),
                "full_feature_names: must be true or false");
        assertRefused(
                400,
                post(spend + entities + ", \"at\": \"yesterday\"}"),
                "at: 'yesterday' is not an ISO instant");
        assertRefused(
                400,
                post(spend + "\"entities\": {\"customer_id\": [\"u1\"]}}"),
                "entities: 'customer_id' is not the entity of view 'user_purchases'");
        assertRefused(
                400,
                post("{\"features\": \"user_purchases:spend_24h\", " + entities + "}"),
                "features: must be a list");
        assertRefused(
                400,
                post("{\"features\": [\"user_purchases:spend_1y\"], " + entities + "}"),
                "view 'user_purchases' has no feature 'spend_1y'; its features: purchases_1h,");
        assertRefused(
                400,
                post("{\"features\": [\"orders:total\"], " + entities + "}"),
                "unknown feature view 'orders'",
                "views: user_activity, user_cart, user_purchases");
        assertRefused(
                400,
                post(request(FEATURES, List.of("u1", ""), null, false)),
                "entities.user_id[1]: empty entity key");
        assertRefused(
                400,
                post(request(FEATURES, List.of("a", "b", "c", "d", "e", "f"), null, false)),
                "entities.user_id: 6 entity keys, more than the limit of 5");
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            many.add(FEATURES.get(i % FEATURES.size()));
        }
        assertRefused(
                400,
                post(request(many, List.of("u1"), null, false)),
                "features: 9 features, more than the limit of 8");
        String big =
                "{\"features\": [\"user_purchases:spend_24h\"], \"entities\": {\"user_id\": [\""
                        + "x".repeat(5000)
                        + "\"]}}";
        assertRefused(413, post(big), "larger than the limit of 4096 bytes");
        assertRefused(404, get("/nothing-here"), "no such endpoint: /nothing-here");
        assertRefused(405, get("/get-online-features"), "GET is not allowed");

        assertRefused(
                400,
                post(spend + entities + ", \"at\": \"-999999999-01-01T00:00:00Z\"}"),
                "at: -999999999-01-01T00:00:00Z is before year 1");
        assertRefused(
                400,
                post(
                        "{\"features\": [\"user_purchases:spend_24h\","
                                + " \"user_purchases:spend_24h\"], "
                                + entities
                                + "}"),
                "features: [user_purchases:spend_24h, user_purchases:spend_24h] share a name",
                "full_feature_names");
        // A path with a malformed escape, which an HTTP client library would not send.
        Answer badPath = raw("GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "", 0);
        assertThat(badPath.status()).as(badPath.text()).isEqualTo(400);
        assertThat(badPath.message()).contains("the path is not a valid URL path");

        // A body that stops half-way, and one that trickles in a byte at a time (never idle):
        // both are answered 408 once the request timeout (1 s) has passed, and closed. Closing
        // them is the server's answer, not an error it logs.
        String body = request(FEATURES, List.of("u1"), null, false);
        String head =
                "POST /get-online-features HTTP/1.1\r\nHost: x\r\nContent-Type:"
                        + " application/json\r\nContent-Length: "
                        + body.length()
                        + "\r\n\r\n";
        try (LogCapture router = new LogCapture(io.vertx.ext.web.RoutingContext.class)) {
            for (long every : new long[] {0, 300}) {
                long start = System.nanoTime();
                Answer slow = raw(head, every == 0 ? body.substring(0, 10) : body, every);
                assertThat(slow.status()).as(slow.text()).isEqualTo(408);
                assertThat(slow.message())
                        .contains(
                                "did not arrive whole within 1 s of its headers"
                                        + " (--request-timeout)");
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
            }
            // A client that goes away half-way through its body.
            try (Socket socket = new Socket("127.0.0.1", base.getPort())) {
                socket.getOutputStream()
                        .write((head + body.substring(0, 10)).getBytes(StandardCharsets.US_ASCII));
            }
            // Handled once no request but this scrape is in flight: the server counts a request
            // until its response ends or its connection closes.
            poll(
                    () -> get("/metrics"),
                    r -> r.body().contains("sluice_serve_requests_in_flight 1.0"));
            assertThat(router.messages()).as("what the router logged").isEmpty();
        }

        // An idle client and one that stops half-way through its headers are both dropped.
        for (String sent : List.of("", "POST /get-online-features HTTP/1.1\r\nHost: x\r\n")) {
            try (Socket socket = new Socket("127.0.0.1", base.getPort())) {
                socket.setSoTimeout(15_000);
                socket.getOutputStream().write(sent.getBytes(StandardCharsets.US_ASCII));
                long start = System.nanoTime();
                InputStream in = socket.getInputStream();
                assertThat(in.read()).as("closed by the server, not answered").isEqualTo(-1);
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
            }
        }
    }

    @Test
    void answers503WhileRedisIsDownAndRecoversWithoutARestart(@TempDir Path dir) throws Exception {
        Catalog catalog = Catalog.of(TestConfigs.shop(dir, "localhost:1", "t"));
        try (LocalRedis redis = new LocalRedis(dir.resolve("redis"));
                OnlineStore store = new RedisOnlineStore(redis.uri());
                FeatureServer server =
                        FeatureServer.start(catalog, store, limits, "127.0.0.1", 0)) {
            writeTiles(catalog, store);
            base = URI.create("http://127.0.0.1:" + server.port());
            // Read at now from the event loop (Redis's client is asynchronous): the same answer
            // as the reader's, the never-seen entity found missing by the second read. (Every
            // event is minutes from a tile's edge, so a few milliseconds between the two reads
            // change no window.)
            List<String> entities = List.of("u1", "u2", "never-seen");
            String good = request(FEATURES, entities, null, true);
            HttpResponse<String> before = post(good);
            assertThat(before.statusCode()).as(before.body()).isEqualTo(200);
            FeatureReader reader =
                    new FeatureReader(store, catalog.views(), System::currentTimeMillis);
            assertSameAsReader(
                    mapper.readTree(before.body()),
                    reader.read(refs(), entities, System.currentTimeMillis()),
                    entities);
            // A chosen time reads the marks too, on a worker.
            HttpResponse<String> past = post(request(FEATURES, entities, now - MINUTE, true));
            assertSameAsReader(
                    mapper.readTree(past.body()),
                    reader.readAsOf(refs(), entities, Instant.ofEpochMilli(now - MINUTE)),
                    entities);
            assertThat(mapper.readTree(before.body()).at("/results/1/statuses/2").asText())
                    .isEqualTo("NOT_FOUND");

            redis.stop();
            poll(() -> get("/ready"), r -> r.statusCode() == 503);
            HttpResponse<String> down = post(good);
            assertRefused(503, down, "the online store is not answering");
            assertThat(get("/health").statusCode()).as("still live").isEqualTo(200);

            redis.start();
            poll(() -> get("/ready"), r -> r.statusCode() == 200);
            HttpResponse<String> after = post(good);
            assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
            assertThat(after.body()).isEqualTo(before.body());
            assertThat(get("/metrics").body())
                    .containsPattern("sluice_serve_store_errors_total [1-9]")
                    .contains(
                            "sluice_serve_requests_seconds_count{endpoint=\"/ready\","
                                    + "status=\"503\"}");
        }
    }

    /**
     * Connections are spread over the server's event loops: while one request holds its loop (a
     * store read that blocks, for the test, on the loop that sent it), a request on another
     * connection is answered. With one event loop this test fails: the second request waits.
     */
    @Test
    void aRequestHoldingOneEventLoopDoesNotHoldUpTheOthers(@TempDir Path dir) throws Exception {
        Catalog catalog = Catalog.of(TestConfigs.shop(dir, "localhost:1", "t"));
        try (HeldRead store = new HeldRead(dir, true);
                FeatureServer server =
                        FeatureServer.start(catalog, store, limits, "127.0.0.1", 0, 2)) {
            writeTiles(catalog, store);
            base = URI.create("http://127.0.0.1:" + server.port());
            CompletableFuture<HttpResponse<String>> held = postHeld();
            store.awaitHeld();
            try {
                // A new connection (the first is busy), so the other event loop's.
                HttpResponse<String> other = post(request(FEATURES, List.of("u1"), null, true));
                assertThat(other.statusCode()).as(other.body()).isEqualTo(200);
                assertThat(held).as("still held").isNotDone();
            } finally {
                store.release();
            }
            HttpResponse<String> done = held.get(10, TimeUnit.SECONDS);
            assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
            assertThat(mapper.readTree(done.body()).at("/results/1/statuses/0").asText())
                    .isEqualTo("NOT_FOUND");
        }
    }

    /**
     * A shutdown as Kubernetes asks for one (SIGTERM, then {@code sluice serve} calls {@link
     * FeatureServer#shutdown}): while a request is in flight the server leaves the Service ({@code
     * /ready} answers 503) but still answers, closing each connection after its response; the
     * request in flight is answered; only then does the server stop listening.
     */
    @Test
    void aShutdownAnswersTheRequestInFlightAndLeavesTheServiceFirst(@TempDir Path dir)
            throws Exception {
        Catalog catalog = Catalog.of(TestConfigs.shop(dir, "localhost:1", "t"));
        try (HeldRead store = new HeldRead(dir, false);
                FeatureServer server =
                        FeatureServer.start(catalog, store, limits, "127.0.0.1", 0, 1)) {
            writeTiles(catalog, store);
            base = URI.create("http://127.0.0.1:" + server.port());
            assertThat(get("/ready").statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> held = postHeld();
            store.awaitHeld();
            assertThat(get("/metrics").body())
                    .as("the held request and this one")
                    .contains("sluice_serve_requests_in_flight 2.0");
            CompletableFuture<Integer> shutdown =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return server.shutdown(Duration.ZERO, Duration.ofSeconds(30));
                                } catch (InterruptedException e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            try {
                poll(() -> get("/ready"), r -> r.statusCode() == 503);
                assertThat(mapper.readTree(get("/ready").body()).get("status").asText())
                        .isEqualTo("draining");
                HttpResponse<String> during = post(request(FEATURES, List.of("u1"), null, true));
                assertThat(during.statusCode()).as(during.body()).isEqualTo(200);
                assertThat(during.headers().firstValue("connection")).hasValue("close");
                // An HTTP/2 client (h2c, prior knowledge) is answered too, its connection sent
                // a GOAWAY instead of the header HTTP/2 does not have.
                assertThat(http2Status(server.port())).isEqualTo(200);
                assertThat(held).as("still held").isNotDone();
                assertThat(shutdown).as("waits for the held request").isNotDone();
            } finally {
                store.release();
            }
            HttpResponse<String> done = held.get(10, TimeUnit.SECONDS);
            assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
            assertThat(shutdown.get(30, TimeUnit.SECONDS)).as("requests cut off").isZero();
            assertThatThrownBy(() -> get("/health"))
                    .as("closed after the drain")
                    .isInstanceOf(java.net.ConnectException.class);
        }
    }

    /** A request still in flight when the drain's timeout passes is cut off, and counted. */
    @Test
    void aShutdownStopsWaitingAfterItsTimeout(@TempDir Path dir) throws Exception {
        Catalog catalog = Catalog.of(TestConfigs.shop(dir, "localhost:1", "t"));
        try (HeldRead store = new HeldRead(dir, false)) {
            FeatureServer server = FeatureServer.start(catalog, store, limits, "127.0.0.1", 0, 1);
            try {
                base = URI.create("http://127.0.0.1:" + server.port());
                CompletableFuture<HttpResponse<String>> held = postHeld();
                store.awaitHeld();
                assertThat(server.shutdown(Duration.ZERO, Duration.ofMillis(200)))
                        .as("requests cut off")
                        .isEqualTo(1);
                assertThatThrownBy(() -> held.get(10, TimeUnit.SECONDS))
                        .as("the cut-off request has no answer")
                        .hasCauseInstanceOf(IOException.class);
            } finally {
                store.release();
                server.close();
            }
        }
    }

    /** The status of {@code GET /health} over HTTP/2 without an upgrade (h2c prior knowledge). */
    private static int http2Status(int port) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            io.vertx.core.http.HttpClient client =
                    vertx.createHttpClient(
                            new HttpClientOptions()
                                    .setProtocolVersion(HttpVersion.HTTP_2)
                                    .setHttp2ClearTextUpgrade(false));
            return client.request(HttpMethod.GET, port, "127.0.0.1", "/health")
                    .compose(r -> r.send())
                    .map(r -> r.version() == HttpVersion.HTTP_2 ? r.statusCode() : -1)
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Sends a request for entity {@code held}, without waiting for its answer. */
    private CompletableFuture<HttpResponse<String>> postHeld() throws Exception {
        return http.sendAsync(
                HttpRequest.newBuilder(base.resolve("/get-online-features"))
                        .timeout(Duration.ofSeconds(30))
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        request(FEATURES, List.of("held"), null, true)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A SQLite store whose reads, for entity {@code held}, wait until released: on the caller's
     * thread, the event loop if it says it does not block, else on a worker.
     */
    private static final class HeldRead extends ForwardingOnlineStore {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final boolean onTheLoop;

        /**
         * @param onTheLoop whether the server reads it on the event loop (else on a worker)
         */
        HeldRead(Path dir, boolean onTheLoop) throws IOException {
            super(new SqliteOnlineStore(dir.resolve("online.db")));
            this.onTheLoop = onTheLoop;
        }

        /** Waits until a read of {@code held} has begun. */
        void awaitHeld() throws InterruptedException {
            assertThat(entered.await(10, TimeUnit.SECONDS)).as("the held read began").isTrue();
        }

        void release() {
            release.countDown();
        }

        @Override
        public List<Found> read(List<RangeRead> reads, long now) throws IOException {
            if (reads.stream().anyMatch(r -> r.entity().equals("held"))) {
                entered.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.read(reads, now);
        }

        @Override
        public boolean readsWithoutBlocking() {
            return onTheLoop;
        }
    }

    /** u1 bought in the last 30 hours; u2 only two days ago; nobody else bought anything. */
    private void writeTiles(Catalog catalog, OnlineStore store) throws Exception {
        ViewDef view =
                catalog.views().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow();
        Map<String, List<Long>> times =
                Map.of(
                        "u1", List.of(now - 30 * HOUR, now - 5 * HOUR, now - 20 * MINUTE),
                        "u2", List.of(now - 50 * HOUR, now - 49 * HOUR));
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        int id = 0;
        for (var e : times.entrySet()) {
            EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
            for (long ts : e.getValue()) {
                Object[] values = new Object[view.fields().size()];
                values[view.fields().indexOf("price")] = 10.5 + id;
                values[view.fields().indexOf("category")] = id % 2 == 0 ? "toys" : "books";
                values[view.fields().indexOf("payment_method")] = "card";
                tiles.add(new EventEntry(ts, "e" + id++, values));
            }
            writes.addAll(TileWrites.of(view, e.getKey(), tiles, tiles.tiles().keySet()));
        }
        assertThat(store.write(writes)).isEqualTo(writes.size());
        // As a features job that has applied every event up to now marks them.
        for (ViewDef v : catalog.views()) {
            store.markWritten(v.name(), 1, 0, now);
        }
    }

    private static List<FeatureReader.FeatureRef> refs() {
        return FEATURES.stream().map(FeatureReader.FeatureRef::parse).toList();
    }

    private void assertSameAsReader(
            JsonNode body, List<FeatureReader.Vector> expected, List<String> entities) {
        assertThat(body.at("/metadata/feature_names/0").asText()).isEqualTo("user_id");
        assertThat(body.at("/results/0/values").toString())
                .isEqualTo(mapper.valueToTree(entities).toString());
        for (int f = 0; f < FEATURES.size(); f++) {
            FeatureReader.FeatureRef ref = refs().get(f);
            JsonNode column = body.get("results").get(f + 1);
            assertThat(body.at("/metadata/feature_names/" + (f + 1)).asText())
                    .isEqualTo(ref.view() + "__" + ref.feature());
            for (int e = 0; e < entities.size(); e++) {
                FeatureValue want = expected.get(e).values().get(f);
                String what = ref + " of " + entities.get(e);
                JsonNode got = column.get("values").get(e);
                if (want.value() == null) {
                    assertThat(got.isNull()).as(what).isTrue();
                } else if (want.value() instanceof Number n) {
                    assertThat(got.doubleValue()).as(what).isEqualTo(n.doubleValue());
                } else {
                    assertThat(got.asText()).as(what).isEqualTo(want.value());
                }
                assertThat(column.get("statuses").get(e).asText())
                        .as(what)
                        .isEqualTo(FeastResponse.status(want).name());
                assertThat(column.get("event_timestamps").get(e).asText())
                        .as(what)
                        .isEqualTo(Instant.ofEpochMilli(Math.max(0, want.eventTime())).toString());
            }
        }
    }

    private String request(List<String> features, List<String> entities, Long at, boolean full)
            throws Exception {
        var root = mapper.createObjectNode();
        features.forEach(root.putArray("features")::add);
        entities.forEach(root.putObject("entities").putArray("user_id")::add);
        root.put("full_feature_names", full);
        if (at != null) {
            root.put("at", Instant.ofEpochMilli(at).toString());
        }
        return mapper.writeValueAsString(root);
    }

    private HttpResponse<String> post(String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(base.resolve("/get-online-features"))
                        .timeout(Duration.ofSeconds(10))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** What the server answered on a connection of its own, read until it closed it. */
    private record Answer(String text) {

        int status() {
            return Integer.parseInt(text.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
        }

        String message() throws IOException {
            String json = text.substring(text.indexOf("\r\n\r\n") + 4);
            return new ObjectMapper().readTree(json).get("message").asText();
        }
    }

    /**
     * Sends {@code head}, then {@code body} a byte every {@code everyMillis} (0: all at once) from
     * a thread of its own, as a slow client does, and reads the answer until the server closes the
     * connection.
     */
    private Answer raw(String head, String body, long everyMillis) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", base.getPort())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread sender =
                    new Thread(
                            () -> {
                                try {
                                    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                                    for (int i = 0; i < bytes.length; i++) {
                                        out.write(bytes, i, 1);
                                        out.flush();
                                        if (everyMillis > 0) {
                                            Thread.sleep(everyMillis); // the slow client itself
                                        }
                                    }
                                } catch (IOException | InterruptedException closed) {
                                    // the server closed the connection, or the test is done
                                }
                            });
            sender.start();
            try {
                return new Answer(
                        new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } finally {
                sender.interrupt();
                sender.join();
            }
        }
    }

    private void assertRefused(int status, HttpResponse<String> response, String... message)
            throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode body = mapper.readTree(response.body());
        assertThat(body.get("status").asInt()).isEqualTo(status);
        assertThat(body.get("message").asText()).contains(message);
        assertThat(response.body()).doesNotContain("Exception", "\\tat ", "\tat ");
    }

    private interface Call {
        HttpResponse<String> call() throws Exception;
    }

    /** Calls until {@code done} holds, for at most 30 s. */
    private static void poll(Call call, Predicate<HttpResponse<String>> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        HttpResponse<String> last = call.call();
        while (!done.test(last)) {
            assertThat(System.nanoTime()).as("last answer: " + last.body()).isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            last = call.call();
        }
    }
}
