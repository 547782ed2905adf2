package io.sluice.app.bench;

import io.sluice.app.Jobs;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.EventStreams;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.job.FeaturesJob;
import io.sluice.features.job.OnlineSink;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.redis.LocalRedis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The freshness part of {@link FeaturesBenchmark}: the features job (Redis store) under a sustained
 * load at each rate, timed from a probe event's event time until it is readable online.
 */
final class FreshnessBenchmark {

    /**
     * How often the freshness load reads its waiting probes: a probe's freshness is over-stated by
     * at most this much.
     */
    private static final long POLL_NANOS = 5_000_000L;

    private final int parallelism;
    private final Duration sustain;

    FreshnessBenchmark(int parallelism, Duration sustain) {
        this.parallelism = parallelism;
        this.sustain = sustain;
    }

    /** One load per rate, in order; returns the markdown lines that report them. */
    List<String> run(
            SluiceConfig config, EmbeddedKafka kafka, LocalRedis redis, List<Integer> rates)
            throws Exception {
        List<Freshness> loads = new ArrayList<>();
        // One unmeasured load first, at the highest rate, as every benchmark runs one unmeasured
        // round: without it the JIT compiles the Redis path during the measured loads (a third
        // of a core at 20k events/s, docs/performance.md).
        load(config, kafka, redis, Collections.max(rates), "warm-up");
        // Its job's state is garbage now: collect it here rather than in the first measured load.
        System.gc();
        for (int rate : rates) {
            loads.add(load(config, kafka, redis, rate, String.valueOf(rate)));
        }
        return section(loads);
    }

    /**
     * Sustained load at {@code rate} events/s stamped with the wall clock, plus ten probe events a
     * second for fresh users; freshness is the time from a probe's event time until {@code get} at
     * that moment counts it in Redis.
     */
    private Freshness load(
            SluiceConfig config, EmbeddedKafka kafka, LocalRedis redis, int rate, String label)
            throws Exception {
        TableConfig table = config.table("page_views").orElseThrow();
        FeatureViewConfig viewConfig = FeaturesBenchmark.view(config, "user_activity");
        String topic = table.topic() + ".live-" + label;
        kafka.createTopics(parallelism, topic);
        TableConfig live =
                new TableConfig(
                        table.name(),
                        topic,
                        table.schemaName(),
                        table.schema(),
                        table.format(),
                        table.eventTime(),
                        table.key(),
                        table.id(),
                        table.buckets(),
                        table.allowedLateness(),
                        table.maxOutOfOrderness(),
                        table.idleness(),
                        table.strict(),
                        table.maxRecordBytes(),
                        table.maxFuture(),
                        table.maxPast(),
                        table.dedupRetention());
        OnlineConfig online = new OnlineConfig(io.sluice.config.OnlineStoreType.REDIS, redis.uri());
        StreamExecutionEnvironment env =
                Jobs.local(
                        parallelism,
                        FeaturesBenchmark.CHECKPOINTS,
                        Path.of(
                                System.getProperty("java.io.tmpdir"),
                                "sluice-bench-fresh-" + UUID.randomUUID()));
        FeaturesJob.defineView(
                env,
                viewConfig,
                live,
                EventStreams.source(
                        config.kafka(), live, false, "bench-fresh-" + UUID.randomUUID()),
                new OnlineSink(online, viewConfig.name(), FeaturesJob.FLUSH_INTERVAL_MILLIS),
                false,
                null);
        JobClient job = env.executeAsync("bench-freshness");
        ViewDef view = ViewDef.of(viewConfig, table);
        List<Double> latencies = new CopyOnWriteArrayList<>();
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers());
                OnlineStore store = OnlineStores.open(online)) {
            FeatureReader reader =
                    new FeatureReader(store, List.of(view), System::currentTimeMillis);
            List<FeatureReader.FeatureRef> count =
                    List.of(new FeatureReader.FeatureRef(view.name(), "page_views_5m"));
            long start = System.nanoTime();
            long end = start + sustain.toNanos();
            long warmUp = start + Duration.ofSeconds(5).toNanos();
            SplittableRandom random = new SplittableRandom(1);
            List<long[]> probes = new ArrayList<>(); // {probe number, event time}
            // Users no earlier load has written, so a probe counts only once its own event has.
            String prefix = "probe-" + label + "-";
            long nextProbe = start;
            long nextPoll = start;
            int probe = 0;
            long now;
            while ((now = System.nanoTime()) < end) {
                long due = start + (long) (sent * 1e9 / rate);
                if (now < due) {
                    // Neither spin nor read without pause: this loop shares the machine with the
                    // job it measures, so it sleeps until the next send or probe read is due.
                    if (now >= nextPoll) {
                        pollProbes(reader, count, prefix, probes, latencies);
                        nextPoll = now + POLL_NANOS;
                    } else {
                        LockSupport.parkNanos(Math.min(due, nextPoll) - now);
                    }
                    continue;
                }
                // Each load's own users, so that no load's tiles meet an earlier load's.
                String user = label + "-user-" + random.nextInt(5_000);
                producer.send(record(topic, user, label + "-e" + sent));
                sent++;
                if (now >= nextProbe) {
                    long eventTime = System.currentTimeMillis();
                    producer.send(record(topic, prefix + probe, label + "-p" + probe, eventTime));
                    if (now >= warmUp) {
                        probes.add(new long[] {probe, eventTime});
                    }
                    probe++;
                    nextProbe += 100_000_000L;
                }
            }
            long drainUntil = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!probes.isEmpty() && System.nanoTime() < drainUntil) {
                pollProbes(reader, count, prefix, probes, latencies);
                LockSupport.parkNanos(POLL_NANOS);
            }
            if (!probes.isEmpty()) {
                throw new IllegalStateException(
                        probes.size() + " probe events never became readable");
            }
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
        List<Double> sorted = new ArrayList<>(latencies);
        sorted.sort(null);
        return new Freshness(
                rate,
                sent / (double) sustain.toSeconds(),
                sorted.size(),
                OnlineReadLatency.percentile(sorted, 0.50),
                OnlineReadLatency.percentile(sorted, 0.99));
    }

    /** One freshness load's result. */
    private record Freshness(int rate, double achieved, int probes, double p50, double p99) {}

    private List<String> section(List<Freshness> loads) {
        List<String> lines = new ArrayList<>();
        lines.add(
                String.format(
                        "Freshness: the features job (Redis store, parallelism %d) under page views"
                            + " stamped with the wall clock for %d s at each rate (achieved: %s);"
                            + " ten probe events a second for new users, each timed from its event"
                            + " time until `get` at that moment counts it (%s probes after a 5 s"
                            + " warm-up; the waiting probes are read every 5 ms, and the load"
                            + " generator sleeps between sends, so it leaves the cores to the job),"
                            + " after one unmeasured load at the highest rate; each load has users"
                            + " of its own. The online sink flushes every 100 ms.",
                        parallelism,
                        sustain.toSeconds(),
                        loads.stream()
                                .map(f -> String.format("%,.0f/s", f.achieved()))
                                .collect(Collectors.joining(", ")),
                        loads.stream()
                                .map(f -> String.valueOf(f.probes()))
                                .collect(Collectors.joining(", "))));
        lines.add("");
        lines.add("| freshness, event time → readable online | p50 | p99 | goal |");
        lines.add("|---|---|---|---|");
        for (Freshness f : loads) {
            lines.add(
                    String.format(
                            "| at %,d events/s | %.0f ms | %.0f ms | %s |",
                            f.rate(),
                            f.p50(),
                            f.p99(),
                            // The goals: 1 s at 20k events/s, 500 ms at 5k.
                            f.rate() <= 5_000 ? "p99 ≤ 500 ms" : "p99 ≤ 1,000 ms"));
        }
        return lines;
    }

    private static void pollProbes(
            FeatureReader reader,
            List<FeatureReader.FeatureRef> count,
            String prefix,
            List<long[]> probes,
            List<Double> latencies)
            throws Exception {
        if (probes.isEmpty()) {
            return;
        }
        List<String> entities = new ArrayList<>();
        for (long[] p : probes) {
            entities.add(prefix + p[0]);
        }
        long now = System.currentTimeMillis();
        List<FeatureReader.Vector> vectors = reader.read(count, entities, now);
        List<long[]> seen = new ArrayList<>();
        for (int i = 0; i < vectors.size(); i++) {
            Object v = vectors.get(i).values().get(0).value();
            if (v != null && ((Number) v).longValue() > 0) {
                latencies.add((double) (now - probes.get(i)[1]));
                seen.add(probes.get(i));
            }
        }
        probes.removeAll(seen);
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String user, String id) {
        return record(topic, user, id, System.currentTimeMillis());
    }

    private static ProducerRecord<byte[], byte[]> record(
            String topic, String user, String id, long eventTime) {
        // Concatenated, not String.format: this runs 20,000 times a second next to the job.
        String json =
                "{\"event_id\":\""
                        + id
                        + "\",\"event_time\":"
                        + eventTime
                        + ",\"user_id\":\""
                        + user
                        + "\",\"session_id\":\"s\",\"page\":\"/p\",\"category\":\"toys\","
                        + "\"device\":\"WEB\",\"country\":\"DE\"}";
        return new ProducerRecord<>(
                topic,
                user.getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8));
    }
}
