package io.sluice.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.redis.LocalRedis;
import io.sluice.serving.Catalog;
import io.sluice.serving.FeatureServer;
import io.sluice.serving.Limits;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletionStage;

/**
 * The serving benchmark: {@code sluice serve}'s {@link FeatureServer}, in process, over a local
 * Redis holding the 50-feature view of {@link FeaturesBenchmark}, under an open-loop load ({@link
 * OpenLoop}) from a non-blocking keep-alive HTTP client in the same process. Latencies run from
 * each request's intended send time; the server's own latency comes from its {@code /metrics}
 * histogram; the baseline is the same store's raw multi-key read of the same tiles ({@link
 * #rawRead}), under the same open-loop schedule.
 */
public final class ServeBenchmark {

    private static final String ENTITY = "user_id";
    static final String PATH = "/get-online-features";
    private static final int SINGLE_RATE = 500;
    private static final int BATCH_RATE = 50;
    static final double CAPACITY_P99_MS = 10;
    private static final int FIRST_STEP = 500;
    private static final int LAST_STEP = 64_000;
    private static final int LOWEST_STEP = 25;
    private static final int BISECTIONS = 2;
    static final Duration STEP_WARM_UP = Duration.ofSeconds(1);

    /**
     * How long a phase waits for its last answers: long, so that an overloaded phase's backlog is
     * answered (and counted) before the next phase starts.
     */
    static final Duration DRAIN = Duration.ofSeconds(120);

    /** A load stops when a request is this late: the target cannot keep up. */
    static final Duration GIVE_UP = Duration.ofSeconds(2);

    /** Connections the client keeps open at most; further requests queue in it (and count). */
    private static final int CONNECTIONS = 64;

    private final int runs;
    private final Duration duration;
    private final Duration step;
    private final int batch;
    private final PrintStream out;
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * @param runs repetitions of every scenario; medians are reported
     * @param duration measured length of scenarios a and b and of their baselines
     * @param step measured length of each rate step of scenario c
     * @param batch entities per request in scenario b
     */
    public ServeBenchmark(int runs, Duration duration, Duration step, int batch, PrintStream out) {
        this.runs = runs;
        this.duration = duration;
        this.step = step;
        this.batch = batch;
        this.out = out;
    }

    /** Measures, and returns the markdown section. */
    public String run(Path work) throws Exception {
        double loadBefore = loadAverage();
        ViewDef view = OnlineReadLatency.fiftyFeatures();
        try (LocalRedis redis = new LocalRedis();
                OnlineStore store = new RedisOnlineStore(redis.uri())) {
            List<String> entities = OnlineReadLatency.populate(store, view);
            Random random = new Random(13);
            List<List<String>> singles = new ArrayList<>();
            for (String e : entities) {
                singles.add(List.of(e));
            }
            Collections.shuffle(singles, random);
            List<List<String>> batches = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                List<String> shuffled = new ArrayList<>(entities);
                Collections.shuffle(shuffled, random);
                batches.add(List.copyOf(shuffled.subList(0, batch)));
            }
            try (FeatureServer server =
                            FeatureServer.start(
                                    catalog(view), store, Limits.DEFAULT, "127.0.0.1", 0);
                    LoadClient client = new LoadClient(server.port(), PATH, CONNECTIONS)) {
                ServeLoad single =
                        new ServeLoad(
                                client,
                                bodies(view, singles),
                                store,
                                view,
                                singles,
                                duration,
                                step,
                                out);
                ServeLoad many =
                        new ServeLoad(
                                client,
                                bodies(view, batches),
                                store,
                                view,
                                batches,
                                duration,
                                step,
                                out);
                single.check(view.features().size());
                many.check(view.features().size());
                return measure(single, many, loadBefore);
            }
        }
    }

    private String measure(ServeLoad single, ServeLoad many, double loadBefore) {
        ServeFigures a =
                new ServeFigures("a) 1 entity × 50 features, " + SINGLE_RATE + " requests/s");
        ServeFigures b =
                new ServeFigures(
                        "b) " + batch + " entities × 50 features, " + BATCH_RATE + " requests/s");
        List<Double> capacity = new ArrayList<>();
        // Run 0 is unmeasured: the same loads in the same order, so that the JIT has compiled
        // every path as the runs after it find them. With 10 s of a and b alone first, the first
        // measured run was still the slowest of every invocation.
        for (int r = 0; r <= runs; r++) {
            String run = r == 0 ? "warm-up" : "run " + r + "/" + runs;
            ServeFigures.Http aHttp = single.http(SINGLE_RATE, duration);
            OpenLoop.Result aRaw = single.baseline(SINGLE_RATE);
            ServeFigures.Http bHttp = many.http(BATCH_RATE, duration);
            OpenLoop.Result bRaw = many.baseline(BATCH_RATE);
            int highest =
                    RateSearch.highestPassing(
                            FIRST_STEP,
                            LOWEST_STEP,
                            LAST_STEP,
                            BISECTIONS,
                            rate -> single.passes(rate));
            if (r == 0) {
                out.printf("%s done%n", run);
                continue;
            }
            a.add(aHttp, aRaw);
            out.printf("%s a) %s%n", run, a.last());
            b.add(bHttp, bRaw);
            out.printf("%s b) %s%n", run, b.last());
            capacity.add((double) highest);
            out.printf("%s c) highest passing rate %,d requests/s%n", run, highest);
        }
        return report(a, b, capacity, new double[] {loadBefore, loadAverage()});
    }

    /**
     * The kernel's TCP congestion control, which shapes the loopback connection to Redis: on a
     * machine whose default is {@code bbr}, 100-entity reads stalled about 40 ms now and then until
     * the store's connection acknowledged at once ({@code QuickAck}), which {@code cubic} did not
     * show (docs/performance.md, "Where the 100-entity tail came from").
     */
    static String congestionControl() {
        try {
            return Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage();
    }

    /**
     * The baseline: the raw multi-key read of the objects a request for all of {@code view}'s
     * features of {@code entities} at {@code now} reads: one {@code store.read} of the runs of
     * tiles the windows cover, per entity, as {@link FeatureReader#read} asks for them first (in
     * Redis one pipelined HMGET per entity's hash, expired fields dropped), without decoding or
     * evaluating anything. It is sent as the feature server sends its reads ({@link
     * OnlineStore#readAsync}): no thread waits for it, and each answer is taken apart on the
     * client's I/O thread as it arrives.
     */
    static CompletionStage<Void> rawRead(
            OnlineStore store, ViewDef view, List<String> entities, long now) {
        return store.readAsync(
                FeatureReader.windowReads(view, view.features(), entities, now),
                now,
                Runnable::run,
                (read, found) -> {});
    }

    /** A served catalog of the one view: entity {@code user_id}, source {@code purchases}. */
    private static Catalog catalog(ViewDef view) {
        List<FeatureConfig> features = new ArrayList<>();
        for (FeatureDef f : view.features()) {
            Duration window = Duration.ofMillis(f.windowMillis());
            features.add(
                    new FeatureConfig(
                            f.name(),
                            f.agg(),
                            f.valueIndex() < 0
                                    ? Optional.empty()
                                    : Optional.of(view.fields().get(f.valueIndex())),
                            Optional.of(window),
                            f.type(),
                            window));
        }
        FeatureViewConfig config =
                new FeatureViewConfig(
                        view.name(),
                        ENTITY,
                        "purchases",
                        Duration.ofMillis(view.tileMillis()),
                        Duration.ofMillis(view.ttlMillis()),
                        features);
        return new Catalog(List.of(config), List.of(view));
    }

    /** Feast-shaped request bodies for every feature of {@code view} and each entity list. */
    private List<Buffer> bodies(ViewDef view, List<List<String>> requests) {
        List<Buffer> bodies = new ArrayList<>();
        for (List<String> entities : requests) {
            ObjectNode body = mapper.createObjectNode();
            ArrayNode features = body.putArray("features");
            view.features().forEach(f -> features.add(view.name() + ":" + f.name()));
            ArrayNode keys = body.putObject("entities").putArray(ENTITY);
            entities.forEach(keys::add);
            bodies.add(Buffer.buffer(body.toString()));
        }
        return bodies;
    }

    private String report(ServeFigures a, ServeFigures b, List<Double> capacity, double[] load) {
        List<String> lines = new ArrayList<>();
        lines.add("## Serving: `sluice serve` under an open-loop load");
        lines.add("");
        lines.add(
                String.format(
                        "`./sluice bench serve --runs %d --duration %d --step %d --entities %d`"
                                + " starts a local Redis (Redis 6.2, loopback) holding the"
                                + " 50-feature view of the features benchmark (count, sum, min, max"
                                + " and avg over 5 minutes to 24 hours, 1-minute tiles, 6-minute"
                                + " mid and 1-hour coarse tiles, so a read names 29 to 85 tile"
                                + " fields per entity; 1,000 entities of 60 events each over the"
                                + " last 25"
                                + " hours) and the feature server in the same JVM on 127.0.0.1"
                                + " (an event loop per core, as `sluice serve` runs by default),"
                                + " then loads it from a Vert.x HTTP client in that JVM too (one"
                                + " event loop, keep-alive, at most %d connections, reading each"
                                + " response whole without keeping it) on an open"
                                + " loop: request i is due at start + i ÷ rate whatever became of"
                                + " the earlier ones, and its latency runs from that intended send"
                                + " time to the end of its response, so a stall counts against"
                                + " every request it delays (no coordinated omission). Latencies"
                                + " in HdrHistogram (3 digits). Requests read random entities at"
                                + " `now`. One unmeasured run first (a, b, their baselines and"
                                + " c, as in every run), so that the JIT has compiled every path;"
                                + " a, b and their baselines are %d s"
                                + " each, every step of c is %d s after 1 s at its rate; a load"
                                + " stops early if a request is %d s late (overload), and every"
                                + " phase waits up to %d s for its last answer before the next"
                                + " starts. The server's p99 comes from its own `/metrics`"
                                + " (`sluice_serve_requests_seconds`, 200s of `%s`): the buckets"
                                + " scraped after minus before the phase (scraped again, for up"
                                + " to %d s, until they count every request the client had"
                                + " answered: the server records a request once its response"
                                + " has ended), interpolated as"
                                + " Prometheus's `histogram_quantile` does; the buckets are 9%% to"
                                + " 33%% apart (… 0.87, 0.96, 1.05, 1.40, 1.75 … ms), so that p99"
                                + " is an estimate within its bucket. The baseline"
                                + " (`ServeBenchmark.rawRead`) is the same store object's raw"
                                + " multi-key read of the same objects: the runs of tiles the"
                                + " request's 50 window covers need, one pipelined `HMGET` per"
                                + " entity's hash (expired fields dropped), without"
                                + " decoding or evaluating, sent without waiting as the server"
                                + " sends its reads (`OnlineStore.readAsync`) on the same"
                                + " open-loop schedule. Redis is reached over loopback TCP; the"
                                + " machine's TCP congestion control is `%s` (Linux's"
                                + " `net.ipv4.tcp_congestion_control`)."
                                + " %d cores, shared with other work: the 1-minute load average"
                                + " was %.1f before the benchmark started and %.1f at its end"
                                + " (its own threads included). Medians over %d runs.",
                        runs,
                        duration.toSeconds(),
                        step.toSeconds(),
                        batch,
                        CONNECTIONS,
                        duration.toSeconds(),
                        step.toSeconds(),
                        GIVE_UP.toSeconds(),
                        DRAIN.toSeconds(),
                        PATH,
                        ServeLoad.SCRAPE_WAIT.toSeconds(),
                        congestionControl(),
                        Runtime.getRuntime().availableProcessors(),
                        load[0],
                        load[1],
                        runs));
        lines.add("");
        lines.add("| measure | median | runs | goal |");
        lines.add("|---|---|---|---|");
        a.rows(lines, 2, "", 1, SINGLE_RATE);
        b.rows(lines, 10, " (Feast's Go server, published: 22 ms)", 0, BATCH_RATE);
        lines.add(
                String.format(
                        "| c) highest rate of 1 × 50 requests with HTTP p99 ≤ %.0f ms, no errors"
                                + " (requests/s; from %,d doubling while it passes or halving"
                                + " while it fails, then %d bisections; 0: not even %d) |"
                                + " %,.0f | %s | |",
                        CAPACITY_P99_MS,
                        FIRST_STEP,
                        BISECTIONS,
                        LOWEST_STEP,
                        BenchmarkReport.median(capacity),
                        BenchmarkReport.runs(capacity, "%,.0f")));
        lines.add("");
        lines.add(a.footnote());
        lines.add("");
        lines.add(b.footnote());
        lines.add("");
        lines.add("Measured " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".");
        return String.join("\n", lines);
    }
}
