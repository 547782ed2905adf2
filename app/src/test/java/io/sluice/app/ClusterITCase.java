package io.sluice.app;

import static io.sluice.app.StreamingRuns.landedIds;
import static io.sluice.app.StreamingRuns.validIds;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.SluiceProcesses.Child;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.OnlineCheck;
import io.sluice.generate.GeneratedRecord;
import io.sluice.testing.Await;
import io.sluice.testing.ChildJava;
import io.sluice.testing.TestClusters;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs on a real standalone Flink cluster, as they run in production. {@code sluice cluster} (a
 * child JVM) starts a job manager and a task manager, each a JVM of its own whose class path is
 * Flink's jars from Maven Central and nothing else; {@code sluice ingest|features|compact --target}
 * upload the shaded job jar ({@code app/target/sluice.jar}) through Flink's REST API and run its
 * {@link FlinkEntry}, so every Sluice, Kafka-connector, Avro and Parquet class the jobs use comes
 * from that jar through Flink's user-code class loader. While a producer writes, the task manager
 * is killed with SIGKILL; {@code sluice cluster} starts a new one, and Flink restarts both jobs on
 * it from their latest checkpoints. Then every valid id is in the landing zone exactly once, every
 * complete hour has its manifest and is compacted on the cluster, and the online values equal the
 * definition.
 */
class ClusterITCase {

    @RegisterExtension static final TestClusters.Kafka KAFKA = new TestClusters.Kafka();

    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @TempDir Path dir;

    @RegisterExtension final SluiceProcesses processes = new SluiceProcesses("256m");

    private final long start = System.nanoTime();

    private void phase(String what) {
        System.out.printf("ClusterITCase: %5.1fs %s%n", (System.nanoTime() - start) / 1e9, what);
    }

    @Test
    void jobsRunFromTheJobJarAndRecoverOnANewTaskManager() throws Exception {
        ReferenceConfig.writeInto(dir, KAFKA.bootstrap());
        Path yaml = StreamingRuns.fasten(dir.resolve("sluice.yaml"));
        SluiceConfig config = SluiceConfig.load(yaml);
        for (TableConfig t : config.tables()) {
            KAFKA.broker().createTopics(2, t.topic(), DeadLetterSerializer.topicFor(t.topic()));
        }
        List<GeneratedRecord> generated = Expected.stream(config, 3_000, 41);

        Child cluster =
                processes.start(
                        dir.resolve("cluster.log"),
                        "cluster",
                        "--port",
                        "0",
                        // Ingest and features at parallelism 2 after the upgrade, and compact.
                        "--slots",
                        "6",
                        // The test JVM's JIT and collector flags, as every child JVM of the tests.
                        "--java-opts",
                        String.join(" ", ChildJava.inheritedOptions()),
                        "--dir",
                        dir.resolve("flink").toString());
        Await.until("the cluster's REST address", TIMEOUT, () -> printed(cluster, "rest: "));
        phase("cluster up");
        URI restUri = URI.create(value(cluster, "rest: (\\S+)"));
        FlinkRest rest = new FlinkRest(restUri);
        long jobManagerPid = Long.parseLong(value(cluster, "jobmanager: pid (\\d+)"));
        long firstTaskManagerPid = Long.parseLong(value(cluster, "taskmanager 1: pid (\\d+)"));
        assertFlinkOnly(classPath(rest), "job manager");
        assertFlinkOnly(commandLineClassPath(firstTaskManagerPid), "task manager");
        assertThat(commandLine(firstTaskManagerPid))
                .as("the task manager's flags: env.java.opts.all, from --java-opts")
                .containsAll(ChildJava.inheritedOptions());

        String target = restUri.getHost() + ":" + restUri.getPort();
        for (String job : List.of("ingest", "features")) {
            submit(job, yaml, target, "--parallelism", "1");
        }
        Map<String, String> jobs = rest.runningJobs();
        phase("jobs submitted");
        assertThat(jobs).containsOnlyKeys("sluice-ingest", "sluice-features");
        for (String id : jobs.values()) {
            Await.until("a first checkpoint of " + id, TIMEOUT, () -> completed(rest, id) > 0);
        }

        long killedAt;
        phase("first checkpoints");
        Map<String, Long> beforeKill = new HashMap<>();
        try (StreamingRuns.Producer producer =
                new StreamingRuns.Producer(KAFKA.bootstrap(), generated, 3)) {
            Path purchases = Path.of(config.tablePath("raw", "purchases"));
            Await.until(
                    "a third of the records sent and some landed",
                    TIMEOUT,
                    () ->
                            producer.sent() > generated.size() / 3
                                    && !landedIds(purchases).isEmpty());
            for (var job : jobs.entrySet()) {
                beforeKill.put(job.getKey(), completed(rest, job.getValue()));
            }
            ProcessHandle taskManager = ProcessHandle.of(firstTaskManagerPid).orElseThrow();
            killedAt = System.currentTimeMillis();
            taskManager.destroyForcibly();
            taskManager.onExit().get();
            assertThat(producer.done()).as("the producer is still sending").isFalse();
            Await.until(
                    "sluice cluster starts a new task manager",
                    TIMEOUT,
                    () -> printed(cluster, "taskmanager 2: pid "));
            for (var job : jobs.entrySet()) {
                String id = job.getValue();
                Await.until(
                        job.getKey() + " restored and checkpointing again",
                        TIMEOUT,
                        () -> restored(rest, id) > 0 && completed(rest, id) > restored(rest, id));
                JsonNode restore = rest.get("/jobs/" + id + "/checkpoints").path("latest");
                assertThat(restore.path("restored").path("id").asLong())
                        .as(job.getKey() + ": restored from the checkpoint before the kill")
                        .isGreaterThanOrEqualTo(beforeKill.get(job.getKey()));
                assertThat(restore.path("restored").path("is_savepoint").asBoolean()).isFalse();
                assertThat(restore.path("restored").path("restore_timestamp").asLong())
                        .isGreaterThan(killedAt);
            }
            Await.until("the producer sent everything", TIMEOUT, producer::done);
            phase("recovered, all sent");
        }
        long secondTaskManagerPid = Long.parseLong(value(cluster, "taskmanager 2: pid (\\d+)"));
        assertThat(taskManagerCount(rest)).as("registered task managers").isEqualTo(1);
        assertFlinkOnly(commandLineClassPath(secondTaskManagerPid), "the new task manager");
        assertThat(rest.runningJobs()).as("the same jobs, still running").isEqualTo(jobs);

        long tickHour = Instant.now().truncatedTo(ChronoUnit.HOURS).toEpochMilli();
        List<GeneratedRecord> all = catchUp(config, generated, tickHour, 20);
        phase("landed");
        Await.until(
                "the features job consumed every record",
                TIMEOUT,
                () -> StreamingRuns.consumedAll(KAFKA.bootstrap(), config, 2));
        long checked = OnlineCheck.exact(config, all);
        phase("online");
        assertThat(checked).isGreaterThan(1_000);

        List<GeneratedRecord> sent = upgrade(yaml, target, rest, all, tickHour);
        SluiceConfig upgraded = SluiceConfig.load(yaml);
        checked += OnlineCheck.exact(upgraded, sent);
        checkFeatureLog(upgraded, sent, tickHour + 20 * 60_000L);
        phase("upgraded");

        // A bounded run on the cluster: compact every complete hour, and wait for it.
        assertThat(Main.run("compact", "--config", yaml.toString(), "--target", target, "--strict"))
                .as("sluice compact --target")
                .isZero();
        phase("compacted");
        // The ticks' hour stays open (even if the clock has passed it since); every hour before it
        // is complete.
        long compactedRows =
                StreamingRuns.assertCompactedAsLanded(
                        config, table -> Path.of(config.tablePath("raw", table)), tickHour, "");
        System.out.printf(
                "ClusterITCase: %d records sent (%d before the task manager was killed), %d valid"
                        + " ids landed once, %d rows compacted, %d online values checked%n",
                sent.size(),
                generated.size(),
                config.tables().stream().mapToLong(t -> validIds(sent, t.name()).size()).sum(),
                compactedRows,
                checked);

        // SIGTERM: sluice cluster stops its job and task managers, then itself.
        cluster.process().destroy();
        assertThat(cluster.awaitExit(2)).as(cluster.output()).isEqualTo(143);
        assertThat(cluster.output()).contains("sluice cluster: stopped");
        for (long pid : List.of(jobManagerPid, secondTaskManagerPid)) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("pid " + pid + " after sluice cluster stopped")
                    .isFalse();
        }
    }

    /**
     * A savepoint upgrade, as the Flink Kubernetes Operator does one ({@code upgradeMode:
     * savepoint}): {@code sluice stop} stops both jobs with a savepoint; the features job's restore
     * into a view that reads a new field is refused, naming the view's tiles operator; then both
     * jobs start from their savepoints from a rebuilt jar at parallelism 2, the features job with a
     * feature added over a field its view already reads (rewriting {@code yaml}). Records sent
     * after the upgrade land, count and log like those before. Returns every record sent.
     */
    private List<GeneratedRecord> upgrade(
            Path yaml, String target, FlinkRest rest, List<GeneratedRecord> before, long tickHour)
            throws Exception {
        Map<String, String> savepoints = new TreeMap<>();
        for (String job : List.of("ingest", "features")) {
            Path dir = this.dir.resolve("savepoints").resolve(job);
            assertThat(
                            Main.run(
                                    "stop",
                                    "--config",
                                    yaml.toString(),
                                    "--target",
                                    target,
                                    "--savepoint-dir",
                                    dir.toUri().toString(),
                                    job))
                    .as("sluice stop " + job)
                    .isZero();
            try (var listing = java.nio.file.Files.list(dir)) {
                List<Path> written = listing.toList();
                assertThat(written).as(job + "'s savepoint").hasSize(1);
                savepoints.put(job, written.get(0).toString());
            }
        }
        assertThat(rest.runningJobs()).as("jobs left running after sluice stop").isEmpty();
        phase("stopped with savepoints");

        String text = java.nio.file.Files.readString(yaml);
        String lastFeature =
                "      - { name: last_payment_method, agg: last, field: payment_method }\n";
        assertThat(text).contains(lastFeature);
        Path newField = this.dir.resolve("new-field.yaml");
        java.nio.file.Files.writeString(
                newField,
                text.replace(
                        lastFeature,
                        lastFeature + "      - { name: last_coupon, agg: last, field: coupon }\n"));
        Child refused =
                processes.start(
                        this.dir.resolve("refused.log"),
                        "features",
                        "--config",
                        newField.toString(),
                        "--target",
                        target,
                        "--from-savepoint",
                        savepoints.get("features"));
        assertThat(refused.awaitExit(2)).as(refused.output()).isEqualTo(2);
        assertThat(refused.output())
                .contains(savepoints.get("features"))
                .containsPattern("'features-user_purchases-tiles-[0-9a-f]{8}'")
                .contains("View user_purchases's tile layout changed")
                .contains("--rebuild")
                .contains("--allow-non-restored-state");
        assertThat(rest.runningJobs()).as("nothing submitted for a refused restore").isEmpty();

        java.nio.file.Files.writeString(
                yaml,
                text.replace(
                        lastFeature,
                        lastFeature
                                + "      - { name: max_price_1h, agg: max, field: price, window:"
                                + " 1h }\n"));
        Path rebuilt = this.dir.resolve("sluice-rebuilt.jar");
        java.nio.file.Files.copy(RemoteJob.jobJar(), rebuilt);
        try (var jar = java.nio.file.FileSystems.newFileSystem(rebuilt)) {
            java.nio.file.Files.writeString(jar.getPath("META-INF", "sluice-rebuilt"), "rebuilt");
        }
        String builtJar = System.getProperty(RemoteJob.JAR_PROPERTY);
        System.setProperty(RemoteJob.JAR_PROPERTY, rebuilt.toString());
        try {
            for (String job : List.of("ingest", "features")) {
                submit(
                        job,
                        yaml,
                        target,
                        "--parallelism",
                        "2",
                        "--from-savepoint",
                        savepoints.get(job));
            }
        } finally {
            if (builtJar == null) {
                System.clearProperty(RemoteJob.JAR_PROPERTY);
            } else {
                System.setProperty(RemoteJob.JAR_PROPERTY, builtJar);
            }
        }
        Map<String, String> jobs = rest.runningJobs();
        assertThat(jobs).containsOnlyKeys("sluice-ingest", "sluice-features");
        for (var job : jobs.entrySet()) {
            String id = job.getValue();
            Await.until(
                    job.getKey() + " restored from its savepoint",
                    TIMEOUT,
                    () -> checkpoints(rest, id).path("restored").path("is_savepoint").asBoolean());
            String restoredFrom =
                    checkpoints(rest, id).path("restored").path("external_path").asText();
            assertThat(restoredFrom)
                    .as(job.getKey() + " restored from")
                    .endsWith(
                            Path.of(savepoints.get(job.getKey().substring("sluice-".length())))
                                    .getFileName()
                                    .toString());
            int widest = 0;
            for (JsonNode vertex : rest.get("/jobs/" + id).path("vertices")) {
                widest = Math.max(widest, vertex.path("parallelism").asInt());
            }
            assertThat(widest).as(job.getKey() + "'s parallelism after the upgrade").isEqualTo(2);
        }
        phase("restored at parallelism 2");

        SluiceConfig upgraded = SluiceConfig.load(yaml);
        List<GeneratedRecord> after = new ArrayList<>();
        new io.sluice.generate.Generator(
                        upgraded.tables(),
                        io.sluice.generate.GeneratorOptions.defaults(1_500, 43)
                                .withStart(Instant.ofEpochMilli(tickHour + 23 * 60_000L))
                                .withSpan(Duration.ofMinutes(3)))
                .run(after::add);
        try (StreamingRuns.Producer producer =
                new StreamingRuns.Producer(KAFKA.bootstrap(), after, 10)) {
            Await.until("the producer sent everything again", TIMEOUT, producer::done);
        }
        List<GeneratedRecord> both = new ArrayList<>(before);
        both.addAll(after);
        List<GeneratedRecord> all = catchUp(upgraded, both, tickHour, 28);
        Await.until(
                "the upgraded features job consumed every record",
                TIMEOUT,
                () -> StreamingRuns.consumedAll(KAFKA.bootstrap(), upgraded, 2));
        System.out.printf(
                "ClusterITCase: upgrade: %d records before, %d after; %d valid ids landed once%n",
                before.size(),
                after.size(),
                upgraded.tables().stream().mapToLong(t -> validIds(all, t.name()).size()).sum());
        return all;
    }

    /**
     * The feature log of {@code user_purchases} across the upgrade, read by DuckDB: no row twice,
     * the newest row of every logged (entity, tile) counts exactly its accepted events, every tile
     * that starts before {@code complete} is logged, and the feature added by the upgrade is in the
     * rows logged since, equal to the tile's highest price.
     */
    private static void checkFeatureLog(
            SluiceConfig config, List<GeneratedRecord> all, long complete) {
        var view =
                config.featureViews().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow();
        TableConfig table = config.table(view.source()).orElseThrow();
        long tile = view.tile().toMillis();
        Map<String, Long> events = new TreeMap<>();
        Map<String, Double> maxPrice = new TreeMap<>();
        Expected.events(view, table, all)
                .forEach(
                        (entity, list) -> {
                            for (var e : list) {
                                String k = entity + "/" + Math.floorDiv(e.ts(), tile) * tile;
                                events.merge(k, 1L, Long::sum);
                                Object price = e.values()[0];
                                if (price != null) {
                                    maxPrice.merge(k, ((Number) price).doubleValue(), Math::max);
                                }
                            }
                        });
        String log =
                "read_parquet('"
                        + config.tablePath("features", view.name())
                        + "/*/*/*.parquet', hive_partitioning = true, union_by_name = true)";
        try (io.sluice.testing.DuckDb duck = new io.sluice.testing.DuckDb()) {
            assertThat(
                            duck.rows(
                                    "select entity, tile_start, version, count(*) as n from "
                                            + log
                                            + " group by all having n > 1"))
                    .as("feature log rows logged twice")
                    .isEmpty();
            Map<String, Long> logged = new TreeMap<>();
            long withNewFeature = 0;
            for (Map<String, Object> r :
                    duck.rows(
                            "select entity, epoch_ms(tile_start) as t,"
                                    + " arg_max(events, version) as events,"
                                    + " arg_max(max_price_1h, version) as max_price from "
                                    + log
                                    + " group by all")) {
                String k = r.get("entity") + "/" + r.get("t");
                logged.put(k, ((Number) r.get("events")).longValue());
                if (r.get("max_price") != null) {
                    withNewFeature++;
                    assertThat(((Number) r.get("max_price")).doubleValue())
                            .as("max_price_1h of tile " + k)
                            .isCloseTo(maxPrice.get(k), org.assertj.core.data.Offset.offset(1e-3));
                }
            }
            assertThat(events).as("tiles logged that have no events").containsAllEntriesOf(logged);
            events.forEach(
                    (k, n) -> {
                        long start = Long.parseLong(k.substring(k.lastIndexOf('/') + 1));
                        if (start + tile <= complete) {
                            assertThat(logged).as("complete tile " + k).containsEntry(k, n);
                        }
                    });
            assertThat(withNewFeature).as("tiles logged with the new feature").isPositive();
            System.out.printf(
                    "ClusterITCase: feature log: %d tiles of user_purchases, %d with"
                            + " max_price_1h%n",
                    logged.size(), withNewFeature);
        }
    }

    /**
     * Sends ticks {@code minute} minutes into the hour {@code tickHour} on every partition, which
     * move each source's watermark past the last generated hour's end plus its allowed lateness,
     * then a second round once the first has landed (a commit whose barrier has that watermark).
     * Asserts that every valid id landed exactly once and every complete hour has its manifest;
     * returns every record sent.
     */
    private List<GeneratedRecord> catchUp(
            SluiceConfig config, List<GeneratedRecord> generated, long tickHour, int minute)
            throws Exception {
        List<GeneratedRecord> ticks =
                StreamingRuns.ticks(config, tickHour + minute * 60_000L, 98 + minute);
        List<GeneratedRecord> moreTicks =
                StreamingRuns.ticks(config, tickHour + (minute + 2) * 60_000L, 99 + minute);
        List<GeneratedRecord> all = new ArrayList<>(generated);
        all.addAll(ticks);
        all.addAll(moreTicks);
        StreamingRuns.sendToBothPartitions(KAFKA.bootstrap(), ticks);
        StreamingRuns.landAll(
                KAFKA.bootstrap(),
                config,
                ticks,
                moreTicks,
                all,
                tickHour,
                table -> Path.of(config.tablePath("raw", table)),
                TIMEOUT);
        return all;
    }

    /** Runs {@code sluice JOB --config yaml --target target options…}, which must exit 0. */
    private static void submit(String job, Path yaml, String target, String... options) {
        List<String> args = new ArrayList<>(List.of(job, "--config", yaml.toString()));
        args.addAll(List.of("--target", target));
        args.addAll(List.of(options));
        assertThat(Main.run(args.toArray(String[]::new)))
                .as("sluice " + String.join(" ", args))
                .isZero();
    }

    /** The id of the job's newest completed checkpoint, or 0. */
    private static long completed(FlinkRest rest, String job) {
        return checkpoints(rest, job).path("completed").path("id").asLong(0);
    }

    /** The id of the checkpoint the job last restored, or 0. */
    private static long restored(FlinkRest rest, String job) {
        return checkpoints(rest, job).path("restored").path("id").asLong(0);
    }

    private static JsonNode checkpoints(FlinkRest rest, String job) {
        try {
            return rest.get("/jobs/" + job + "/checkpoints").path("latest");
        } catch (IOException notYet) {
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
    }

    private static int taskManagerCount(FlinkRest rest) throws IOException {
        return rest.get("/taskmanagers").path("taskmanagers").size();
    }

    /** The job manager's class path, as its REST API reports it. */
    private static List<String> classPath(FlinkRest rest) throws IOException {
        List<String> entries = new ArrayList<>();
        rest.get("/jobmanager/environment").path("classpath").forEach(e -> entries.add(e.asText()));
        return entries;
    }

    /** The {@code -cp} of a running JVM's command line (from /proc: CI runs on Linux). */
    private static List<String> commandLine(long pid) throws IOException {
        return List.of(
                java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"))
                        .split("\u0000"));
    }

    private static List<String> commandLineClassPath(long pid) throws IOException {
        List<String> args = commandLine(pid);
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equals("-cp")) {
                return List.of(args.get(i + 1).split(java.io.File.pathSeparator));
            }
        }
        throw new AssertionError("no -cp in " + String.join(" ", args));
    }

    /** Flink's jars from the build's flink-lib, and none of Sluice's classes or jars. */
    private static void assertFlinkOnly(List<String> classPath, String what) {
        Path lib = Path.of(System.getProperty(LocalFlinkCluster.LIB_PROPERTY)).toAbsolutePath();
        assertThat(classPath).as(what + "'s class path").isNotEmpty();
        assertThat(classPath)
                .as(what + "'s class path: Flink's jars only")
                .allMatch(e -> Path.of(e).toAbsolutePath().startsWith(lib))
                .anyMatch(e -> e.contains("flink-runtime-"))
                .noneMatch(
                        e -> {
                            String jar = Path.of(e).getFileName().toString();
                            return jar.contains("sluice") || jar.contains("kafka");
                        });
    }

    private static boolean printed(Child child, String text) {
        return child.output().contains(text);
    }

    private static String value(Child child, String regex) {
        Matcher m = Pattern.compile(regex).matcher(child.output());
        if (!m.find()) {
            throw new AssertionError("no " + regex + " in: " + child.output());
        }
        return m.group(1);
    }
}
