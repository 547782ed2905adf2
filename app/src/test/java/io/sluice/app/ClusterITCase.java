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
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseManifest;
import io.sluice.testing.Await;
import io.sluice.testing.Landing;
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
import java.util.Set;
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

        String target = restUri.getHost() + ":" + restUri.getPort();
        for (String job : List.of("ingest", "features")) {
            assertThat(Main.run(job, "--config", yaml.toString(), "--target", target))
                    .as("sluice " + job + " --target")
                    .isZero();
        }
        Map<String, String> jobs = runningJobs(rest);
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
        assertThat(runningJobs(rest)).as("the same jobs, still running").isEqualTo(jobs);

        List<GeneratedRecord> all = catchUp(config, generated);
        phase("landed");
        Await.until(
                "the features job consumed every record",
                TIMEOUT,
                () -> StreamingRuns.consumedAll(KAFKA.bootstrap(), config, 2));
        long checked = OnlineCheck.exact(config, all);
        phase("online");
        assertThat(checked).isGreaterThan(1_000);

        // A bounded run on the cluster: compact every complete hour, and wait for it.
        assertThat(Main.run("compact", "--config", yaml.toString(), "--target", target, "--strict"))
                .as("sluice compact --target")
                .isZero();
        long openHour = Instant.now().truncatedTo(ChronoUnit.HOURS).toEpochMilli();
        phase("compacted");
        long compactedRows = 0;
        for (TableConfig t : config.tables()) {
            Map<String, Long> landed = new TreeMap<>();
            for (Landing.Row r : Landing.rows(Path.of(config.tablePath("raw", t.name())))) {
                if (HourPartitioner.parse(r.partition()) < openHour) {
                    landed.merge(r.partition(), 1L, Long::sum);
                }
            }
            Map<String, Long> compacted = new TreeMap<>();
            for (WarehouseManifest hour :
                    WarehouseManifest.readAll(config.tablePath("warehouse", t.name()))) {
                compacted.put(hour.partition(), hour.rows());
            }
            assertThat(compacted).as(t.name() + ": each complete hour's rows").isEqualTo(landed);
            compactedRows += compacted.values().stream().mapToLong(Long::longValue).sum();
        }
        System.out.printf(
                "ClusterITCase: %d records produced (%d ticks), %d valid ids landed once, %d rows"
                        + " compacted, %d online values checked%n",
                generated.size(),
                all.size() - generated.size(),
                config.tables().stream().mapToLong(t -> validIds(all, t.name()).size()).sum(),
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
     * Sends ticks 20 minutes into the current hour on every partition, which move each source's
     * watermark past the last generated hour's end plus its allowed lateness, then a second round
     * once the first has landed (a commit whose barrier has that watermark). Asserts that every
     * valid id landed exactly once and every complete hour has its manifest; returns every record
     * sent.
     */
    private List<GeneratedRecord> catchUp(SluiceConfig config, List<GeneratedRecord> generated)
            throws Exception {
        long tickHour = Instant.now().truncatedTo(ChronoUnit.HOURS).toEpochMilli();
        List<GeneratedRecord> ticks = StreamingRuns.ticks(config, tickHour + 20 * 60_000L, 98);
        List<GeneratedRecord> moreTicks = StreamingRuns.ticks(config, tickHour + 22 * 60_000L, 99);
        List<GeneratedRecord> all = new ArrayList<>(generated);
        all.addAll(ticks);
        all.addAll(moreTicks);
        StreamingRuns.sendToBothPartitions(KAFKA.bootstrap(), ticks);
        for (TableConfig t : config.tables()) {
            Path raw = Path.of(config.tablePath("raw", t.name()));
            Set<String> first = validIds(ticks, t.name());
            Await.until(
                    t.name() + ": the first ticks landed",
                    TIMEOUT,
                    () -> landedIds(raw).containsAll(first));
        }
        StreamingRuns.sendToBothPartitions(KAFKA.bootstrap(), moreTicks);
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
                    () -> StreamingRuns.published(raw, tickHour));
            assertThat(landedIds(raw))
                    .as(t.name() + ": every valid id landed exactly once")
                    .containsExactlyInAnyOrderElementsOf(valid);
        }
        return all;
    }

    /** The jobs on the cluster that are not finished, by name. */
    private static Map<String, String> runningJobs(FlinkRest rest) throws IOException {
        Map<String, String> jobs = new TreeMap<>();
        for (JsonNode job : rest.get("/jobs/overview").path("jobs")) {
            if (!FlinkRest.TERMINAL.contains(job.path("state").asText())) {
                jobs.put(job.path("name").asText(), job.path("jid").asText());
            }
        }
        return jobs;
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
    private static List<String> commandLineClassPath(long pid) throws IOException {
        String[] args =
                java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"))
                        .split("\u0000");
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("-cp")) {
                return List.of(args[i + 1].split(java.io.File.pathSeparator));
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
