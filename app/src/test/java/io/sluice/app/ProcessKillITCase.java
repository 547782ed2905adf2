package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.OnlineCheck;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.lake.LandingScan;
import io.sluice.testing.Await;
import io.sluice.testing.Landing;
import io.sluice.testing.TestClusters;
import io.sluice.testing.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest and features jobs run as their own JVM processes ({@code sluice ingest} and {@code
 * sluice features}, as a user or a container runs them) while a producer keeps writing, and are
 * killed with SIGKILL at three moments: during start-up, in the middle of a checkpoint, and right
 * after a checkpoint completed (before or while its files are committed). Each is restarted the way
 * a user restarts it, with the same command. After a last restart every valid id is in the landing
 * zone exactly once, every complete hour has its manifest and compacts, nothing killed runs left in
 * progress remains, and the online values equal the definition.
 */
class ProcessKillITCase {

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @TempDir Path dir;

    private final Map<String, Integer> starts = new HashMap<>();

    /** Every process this test started, killed afterwards even when the test fails. */
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killWhatIsLeft() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void killedJobsResumeFromTheirCheckpointsAndLoseOrDuplicateNothing() throws Exception {
        ReferenceConfig.writeInto(dir, KAFKA.bootstrap());
        Path yaml = dir.resolve("sluice.yaml");
        // Checkpoints every second, and every table's hours due 15 minutes after their end, so
        // that the ticks below complete every hour before the current one.
        Files.writeString(
                yaml,
                Files.readString(yaml)
                        .replace("interval: 10s", "interval: 1s")
                        .replace("allowed_lateness: 1h", "allowed_lateness: 15m"));
        SluiceConfig config = SluiceConfig.load(yaml);
        for (TableConfig t : config.tables()) {
            KAFKA.broker().createTopics(2, t.topic(), DeadLetterSerializer.topicFor(t.topic()));
        }
        List<GeneratedRecord> generated = Expected.stream(config, 12_000, 17);

        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger sent = new AtomicInteger();
        try (KafkaProducer<byte[], byte[]> kafka = Topics.producer(KAFKA.bootstrap())) {
            // 250 records a second, for about 50 s: the jobs are killed while records keep coming.
            producer.scheduleAtFixedRate(
                    () -> {
                        int from = sent.get();
                        int to = Math.min(generated.size(), from + 5);
                        for (GeneratedRecord r : generated.subList(from, to)) {
                            kafka.send(new ProducerRecord<>(r.topic(), r.key(), r.value()));
                        }
                        kafka.flush();
                        sent.set(to);
                    },
                    0,
                    20,
                    TimeUnit.MILLISECONDS);

            // Both jobs run side by side, as deployed; each is killed at its own moment.
            killDuringStartUp(yaml);
            killMidCheckpoint(yaml);
            killRightAfterACheckpoint(yaml);
            Await.until(
                    "the producer sent everything", TIMEOUT, () -> sent.get() == generated.size());
        } finally {
            producer.shutdownNow();
        }
        // Events 20 minutes into the current hour, on every partition, move each source's
        // watermark past the last generated hour's end plus its allowed lateness; a second round,
        // sent once the first has landed, makes a commit whose barrier has that watermark.
        long tickHour = java.time.Instant.now().truncatedTo(ChronoUnit.HOURS).toEpochMilli();
        List<GeneratedRecord> ticks = ticks(config, tickHour + 20 * 60_000L, 98);
        List<GeneratedRecord> moreTicks = ticks(config, tickHour + 22 * 60_000L, 99);
        send(ticks);
        List<GeneratedRecord> all = new ArrayList<>(generated);
        all.addAll(ticks);
        all.addAll(moreTicks);

        // One last restart of each, and they catch up.
        Child ingest = start("ingest", yaml);
        Child features = start("features", yaml);
        long lastStart = System.currentTimeMillis();
        for (TableConfig t : config.tables()) {
            Path raw = Path.of(config.tablePath("raw", t.name()));
            Set<String> first = validIds(ticks, t.name());
            Await.until(
                    t.name() + ": the first ticks landed",
                    TIMEOUT,
                    () -> landedIds(raw).containsAll(first));
        }
        send(moreTicks);
        for (TableConfig t : config.tables()) {
            Path raw = Path.of(config.tablePath("raw", t.name()));
            Set<String> valid = validIds(all, t.name());
            Await.until(
                    t.name() + ": every valid id landed",
                    TIMEOUT,
                    () -> landedIds(raw).containsAll(valid));
            Await.until(
                    t.name() + ": every complete hour has its manifest",
                    TIMEOUT,
                    () -> published(raw, tickHour));
            assertThat(landedIds(raw))
                    .as(t.name() + ": every valid id landed exactly once")
                    .containsExactlyInAnyOrderElementsOf(valid);
            for (LandingScan.Hour h : hours(raw)) {
                assertThat(h.leftovers())
                        .as(t.name() + " " + h.partition() + ": files earlier runs left")
                        .allMatch(f -> f.getModificationTime() >= lastStart - 1_000);
            }
        }
        Await.until("the features job consumed every record", TIMEOUT, () -> consumedAll(config));
        assertThat(ingest.output()).contains("starting from the retained checkpoint");
        assertThat(features.output()).contains("starting from the retained checkpoint");
        ingest.kill();
        features.kill();

        assertThat(runDirs("ingest"))
                .as("runs' checkpoint directories: the restored run's and the last one's")
                .hasSizeLessThanOrEqualTo(2);
        assertThat(Main.run("compact", "--config", yaml.toString(), "--strict")).isZero();
        assertThat(OnlineCheck.exact(config, all)).isGreaterThan(1_000);
    }

    /** Sends each record to both partitions of its topic: the copies are duplicates of one id. */
    private static void send(List<GeneratedRecord> records) {
        try (KafkaProducer<byte[], byte[]> kafka = Topics.producer(KAFKA.bootstrap())) {
            for (GeneratedRecord r : records) {
                for (int partition = 0; partition < 2; partition++) {
                    kafka.send(new ProducerRecord<>(r.topic(), partition, r.key(), r.value()));
                }
            }
        }
    }

    /** A few valid records of every table in the minute from {@code at}, with ids of their own. */
    private static List<GeneratedRecord> ticks(SluiceConfig config, long at, long seed) {
        List<GeneratedRecord> ticks = new ArrayList<>();
        for (TableConfig t : config.tables()) {
            new Generator(
                            List.of(t),
                            GeneratorOptions.defaults(3, seed)
                                    .withStart(java.time.Instant.ofEpochMilli(at))
                                    .withSpan(Duration.ofMinutes(1))
                                    .withRates(0, 0, 0))
                    .run(ticks::add);
        }
        return ticks;
    }

    private static List<LandingScan.Hour> hours(Path raw) {
        try {
            return LandingScan.scan(new org.apache.flink.core.fs.Path(raw.toUri()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether every hour before {@code openHour} has a manifest covering its files. */
    private static boolean published(Path raw, long openHour) {
        return hours(raw).stream()
                .filter(h -> h.hourStart() < openHour)
                .noneMatch(LandingScan.Hour::unpublished);
    }

    /** Whether every features job consumer group has committed the end of its topic. */
    private static boolean consumedAll(SluiceConfig config) {
        Map<String, Object> props = Map.of("bootstrap.servers", KAFKA.bootstrap());
        try (Admin admin = Admin.create(props)) {
            for (var view : config.featureViews()) {
                String topic = config.table(view.source()).orElseThrow().topic();
                String group = config.kafka().group() + "-features-" + view.name();
                Map<TopicPartition, OffsetAndMetadata> committed =
                        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int p = 0; p < 2; p++) {
                    latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
                }
                for (var end : admin.listOffsets(latest).all().get().entrySet()) {
                    OffsetAndMetadata c = committed.get(end.getKey());
                    if (c == null || c.offset() < end.getValue().offset()) {
                        return false;
                    }
                }
            }
            return true;
        } catch (Exception notYet) {
            return false;
        }
    }

    private static final List<String> JOBS = List.of("ingest", "features");

    private void killDuringStartUp(Path yaml) throws Exception {
        Map<String, Child> children = startAll(yaml);
        for (String job : JOBS) {
            Child child = children.get(job);
            Await.until(
                    job + " starting",
                    TIMEOUT,
                    () -> child.output().contains("sluice " + job + ": starting"));
            child.kill();
        }
    }

    private void killMidCheckpoint(Path yaml) throws Exception {
        Map<String, Set<Path>> before = completedOfAll();
        Map<String, Child> children = startAll(yaml);
        for (String job : JOBS) {
            Await.until(
                    job + " completes a checkpoint", TIMEOUT, () -> newer(job, before.get(job)));
            Set<Path> done = completed(job);
            Await.until(job + " begins another checkpoint", TIMEOUT, () -> inProgress(job, done));
            children.get(job).kill();
        }
    }

    private void killRightAfterACheckpoint(Path yaml) throws Exception {
        Map<String, Set<Path>> before = completedOfAll();
        Map<String, Child> children = startAll(yaml);
        for (String job : JOBS) {
            Await.until(
                    job + " completes a checkpoint", TIMEOUT, () -> newer(job, before.get(job)));
            children.get(job).kill();
            assertThat(children.get(job).output())
                    .as("a restart resumes from the checkpoint the killed run left")
                    .contains("starting from the retained checkpoint");
        }
    }

    private Map<String, Child> startAll(Path yaml) throws IOException {
        Map<String, Child> children = new HashMap<>();
        for (String job : JOBS) {
            children.put(job, start(job, yaml));
        }
        return children;
    }

    private Map<String, Set<Path>> completedOfAll() {
        Map<String, Set<Path>> done = new HashMap<>();
        JOBS.forEach(job -> done.put(job, completed(job)));
        return done;
    }

    private Child start(String job, Path yaml, String... more) throws IOException {
        int n = starts.merge(job, 1, Integer::sum);
        Path log = dir.resolve(job + "-" + n + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx768m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.add(job);
        command.add("--config");
        command.add(yaml.toString());
        command.addAll(List.of(more));
        Process p =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        processes.add(p);
        return new Child(p, log);
    }

    private record Child(Process process, Path log) {
        String output() {
            try {
                return Files.readString(log, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** SIGKILL: no shutdown hook, no final checkpoint, no flush. */
        void kill() throws InterruptedException {
            assertThat(process.isAlive()).as("still running when killed: " + output()).isTrue();
            process.destroyForcibly();
            process.waitFor();
        }
    }

    private List<String> landedIds(Path raw) {
        return Landing.rows(raw).stream().map(r -> r.record().get("event_id").toString()).toList();
    }

    private static Set<String> validIds(List<GeneratedRecord> generated, String table) {
        Set<String> ids = new HashSet<>();
        for (GeneratedRecord r : generated) {
            if (r.table().equals(table) && r.kind() != GeneratedRecord.Kind.INVALID) {
                ids.add(r.eventId());
            }
        }
        return ids;
    }

    private Path checkpoints(String job) {
        return dir.resolve("_flink").resolve(job);
    }

    private List<Path> runDirs(String job) throws IOException {
        if (!Files.isDirectory(checkpoints(job))) {
            return List.of();
        }
        try (Stream<Path> runs = Files.list(checkpoints(job))) {
            return runs.filter(Files::isDirectory).toList();
        }
    }

    private List<Path> checkpointDirs(String job) {
        List<Path> all = new ArrayList<>();
        try {
            for (Path run : runDirs(job)) {
                try (Stream<Path> chks = Files.list(run)) {
                    chks.filter(p -> p.getFileName().toString().startsWith("chk-"))
                            .forEach(all::add);
                }
            }
        } catch (IOException raced) {
            // A directory removed while listed (a subsumed checkpoint): list again next poll.
        }
        return all;
    }

    private Set<Path> completed(String job) {
        Set<Path> done = new HashSet<>();
        for (Path chk : checkpointDirs(job)) {
            if (Files.exists(chk.resolve(RetainedCheckpoints.METADATA))) {
                done.add(chk);
            }
        }
        return done;
    }

    private boolean newer(String job, Set<Path> before) {
        return !before.containsAll(completed(job));
    }

    private boolean inProgress(String job, Set<Path> done) {
        for (Path chk : checkpointDirs(job)) {
            if (!done.contains(chk) && !Files.exists(chk.resolve(RetainedCheckpoints.METADATA))) {
                return true;
            }
        }
        return false;
    }
}
