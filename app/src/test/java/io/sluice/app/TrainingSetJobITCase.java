package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compact.Compaction;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.training.Spine;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.testing.ChildJava;
import io.sluice.testing.DuckDb;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterRESTAddress;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training-set job where it matters that it is a job: a spine larger than the heap of the JVM
 * that runs it (a child JVM, whose heap demonstrably cannot hold the spine), written as part files
 * in the spine's order; and the same request submitted to a Flink cluster through its REST endpoint
 * ({@code --target}). Values are checked against {@link SqlFeatures}, DuckDB SQL over the warehouse
 * that shares no code with the tile library.
 */
class TrainingSetJobITCase {

    /**
     * A cluster whose own class path provides Avro and Parquet, as flink-avro's serializers are
     * loaded from it (parent-first, as every {@code org.apache.flink} class): a job's copy of Avro
     * loaded child-first would be another {@code GenericRecord} to them. A cluster image that has
     * neither in {@code lib/} loads both from the job's jars, consistently.
     */
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(
                                    Configuration.fromMap(
                                            Map.of(
                                                    CoreOptions
                                                            .ALWAYS_PARENT_FIRST_LOADER_PATTERNS_ADDITIONAL
                                                            .key(),
                                                    "org.apache.avro.;org.apache.parquet.")))
                            .build());

    /** The heap of the child JVMs: far less than the spine's rows as objects. */
    private static final String HEAP = "-Xmx96m";

    /** Flink's network buffers are direct memory, which is otherwise capped at the heap's size. */
    private static final String DIRECT = "-XX:MaxDirectMemorySize=256m";

    private static final String FEATURES =
            "user_activity:page_views_1h,user_purchases:purchases_7d";

    @TempDir static Path work;
    static SluiceConfig config;
    static Path yaml;
    static Instant start;

    @BeforeAll
    static void warehouse() throws IOException {
        config = ReferenceConfig.writeInto(work, "localhost:9092");
        yaml = work.resolve("sluice.yaml");
        Path root = Path.of(config.rootUri());
        start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(10));
        GeneratorOptions options =
                GeneratorOptions.defaults(20_000, 11)
                        .withStart(start)
                        .withSpan(Duration.ofHours(6))
                        .withRates(0, 0, 0);
        for (TableConfig table : config.tables()) {
            LandingHours.write(root, table, options, 1, false);
            Compaction.compactPending(config, table, 2);
        }
    }

    /**
     * A spine of {@code rows} rows, {@code label} = its row number: known users (every 7th row an
     * unknown one) at random times in the hours the warehouse covers.
     */
    private static Path spine(String name, int rows) {
        Path file = work.resolve(name);
        Path warehouse = Path.of(config.rootUri()).resolve("warehouse/page_views");
        try (DuckDb duck = new DuckDb()) {
            duck.execute("select setseed(0.7)");
            duck.execute(
                    "create table users as select row_number() over (order by user_id) - 1 as i,"
                            + " user_id from (select distinct user_id from read_parquet('"
                            + warehouse
                            + "/*/*/*.parquet'))");
            // The user count as a constant: with a subquery in its condition DuckDB joined every
            // row to every user (a 600,000-row spine took 15 times as long).
            long users = duck.count("select count(*) from users");
            duck.execute(
                    String.format(
                            "copy (select case when r %% 7 = 3 then 'nobody-' || r else"
                                    + " u.user_id end as user_id, to_timestamp(%d + random() * 5"
                                    + " * 3600) as event_timestamp, r as label from range(%d)"
                                    + " t(r) join users u on u.i = (r * 31) %% %d order by r) to"
                                    + " '%s' (format parquet)",
                            start.getEpochSecond() + 3600, rows, users, file));
        }
        return file;
    }

    @Test
    void shouldBuildASpineLargerThanTheHeapOfTheJvmRunningIt() throws Exception {
        int rows = 600_000;
        Path spine = spine("big.parquet", rows);
        // The same heap cannot even hold the spine's rows (about 90 MB as Avro records).
        ChildJava.Exited hold =
                child("-cp", classpath(), HoldSpine.class.getName(), spine.toString());
        assertThat(hold.exit()).as(hold.output()).isNotZero();
        assertThat(hold.output()).contains("OutOfMemoryError");

        Path out = work.resolve("big-out");
        ChildJava.Exited build =
                child(trainingSet(spine, out + "/", "--with-status", "--chunk-rows", "2000"));
        assertThat(build.exit()).as(build.output()).isZero();
        String parts = out.resolve("part-*.parquet").toString();
        try (DuckDb duck = new DuckDb()) {
            // Every row, once, and the parts in file-name order are the spine in its order.
            assertThat(misplacedOfEveryRowOnce(duck, parts, rows)).isZero();
            assertThat(Files.list(out).filter(f -> f.toString().endsWith(".parquet")).count())
                    .isEqualTo(2);
            checkSample(duck, parts, 40);
        }
    }

    @Test
    void shouldPublishNothingWhenKilledAndBuildTheSetWhenRunAgain() throws Exception {
        int rows = 100_000;
        Path spine = spine("killed.parquet", rows);
        Path out = work.resolve("killed-out.parquet");
        Path artifacts = Path.of(config.rootUri()).resolve("training_sets");
        // A build killed two days ago left its staging behind: the next build deletes it.
        Path abandoned = Files.createDirectories(artifacts.resolve("_staging.killed-long-ago"));
        Files.setLastModifiedTime(
                abandoned,
                java.nio.file.attribute.FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        String[] command = trainingSet(spine, out.toString());
        List<Path> before = published(artifacts); // other tests' artifacts
        Path log = Files.createTempFile(work, "killed-", ".log");
        Process first = start(log, command);
        // kill -9 once the client has planned the build and staged its artifact: its job is being
        // submitted or running.
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (Files.exists(abandoned) || staging(artifacts).isEmpty()) {
            assertThat(first.isAlive()).as(Files.readString(log)).isTrue();
            assertThat(System.nanoTime()).as("the build never staged").isLessThan(deadline);
            first.waitFor(20, TimeUnit.MILLISECONDS);
        }
        first.destroyForcibly(); // SIGKILL
        assertThat(first.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(first.exitValue()).as("killed, not finished").isEqualTo(137);
        // Nothing was published: no artifact, no output.
        assertThat(published(artifacts)).containsExactlyInAnyOrderElementsOf(before);
        assertThat(out).doesNotExist();
        List<Path> killedStaging = staging(artifacts);

        ChildJava.Exited again = child(command);
        assertThat(again.exit()).as(again.output()).isZero();
        assertThat(published(artifacts)).hasSize(before.size() + 1).containsAll(before);
        // The killed run's staging is kept (a day's grace: it could be a build still running).
        assertThat(staging(artifacts)).containsExactlyElementsOf(killedStaging);
        try (DuckDb duck = new DuckDb()) {
            misplacedOfEveryRowOnce(duck, out.toString(), rows);
            checkSample(duck, out.toString(), 20);
        }
    }

    /**
     * Asserts that {@code parquet} holds {@code rows} rows, each spine row (its label) once;
     * returns how many stand elsewhere than at their spine position.
     */
    private static long misplacedOfEveryRowOnce(DuckDb duck, String parquet, int rows) {
        Map<String, Object> counts =
                duck.rows(
                                "select count(*) as n, count(distinct label) as labels,"
                                        + " sum(case when label <> rn - 1 then 1 else 0 end)"
                                        + " as misplaced from (select label, row_number()"
                                        + " over () as rn from read_parquet('"
                                        + parquet
                                        + "'))")
                        .get(0);
        assertThat(((Number) counts.get("n")).longValue()).isEqualTo(rows);
        assertThat(((Number) counts.get("labels")).longValue()).isEqualTo(rows);
        return ((Number) counts.get("misplaced")).longValue();
    }

    /** A child JVM's arguments for {@code sluice training-set} of the test's features. */
    private static String[] trainingSet(Path spine, String out, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "-cp",
                                classpath(),
                                Main.class.getName(),
                                "training-set",
                                "--config",
                                yaml.toString(),
                                "--spine",
                                spine.toString(),
                                "--features",
                                FEATURES,
                                "--parallelism",
                                "2",
                                "--out",
                                out));
        args.addAll(List.of(more));
        return args.toArray(new String[0]);
    }

    /** The staging directories of builds in {@code artifacts}. */
    private static List<Path> staging(Path artifacts) throws IOException {
        if (!Files.isDirectory(artifacts)) {
            return List.of();
        }
        try (var entries = Files.list(artifacts)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("_staging."))
                    .sorted()
                    .toList();
        }
    }

    /** The published artifacts in {@code artifacts}: directories with a manifest. */
    private static List<Path> published(Path artifacts) throws IOException {
        if (!Files.isDirectory(artifacts)) {
            return List.of();
        }
        try (var entries = Files.list(artifacts)) {
            return entries.filter(p -> Files.isRegularFile(p.resolve("_SUCCESS"))).toList();
        }
    }

    @Test
    void shouldSubmitTheJobToAClusterThroughItsRestEndpoint(@InjectClusterRESTAddress URI rest)
            throws Exception {
        Path spine = spine("small.parquet", 3_000);
        Path local = work.resolve("local.parquet");
        Path remote = work.resolve("remote.parquet");
        assertThat(run("--spine", spine.toString(), "--out", local.toString())).isZero();
        // A new artifact: the cache would answer an equal request without a job.
        Files.walk(Path.of(config.rootUri()).resolve("training_sets"))
                .sorted(java.util.Comparator.reverseOrder())
                .forEach(p -> p.toFile().delete());
        // A client in its own JVM, as `./sluice training-set --target` on another machine: it
        // submits the job jar (the one ./sluice runs from; a test JVM runs from classes, so names
        // it).
        ChildJava.Exited remoteRun =
                child(
                        "-D"
                                + RemoteJob.JAR_PROPERTY
                                + "="
                                + System.getProperty(RemoteJob.JAR_PROPERTY),
                        "-cp",
                        classpath(),
                        Main.class.getName(),
                        "training-set",
                        "--config",
                        yaml.toString(),
                        "--features",
                        FEATURES,
                        "--spine",
                        spine.toString(),
                        "--out",
                        remote.toString(),
                        "--target",
                        rest.getHost() + ":" + rest.getPort(),
                        "--parallelism",
                        "2");
        assertThat(remoteRun.exit()).as(remoteRun.output()).isZero();
        try (DuckDb duck = new DuckDb()) {
            long differ =
                    duck.count(
                            String.format(
                                    "select count(*) from (select * from read_parquet('%s')"
                                            + " except all select * from read_parquet('%s'))",
                                    local, remote));
            assertThat(differ).isZero();
            assertThat(duck.count("select count(*) from read_parquet('" + remote + "')"))
                    .isEqualTo(3_000);
            checkSample(duck, remote.toString(), 15);
        }
    }

    private static int run(String... args) {
        List<String> all = new ArrayList<>(List.of("training-set", "--config", yaml.toString()));
        all.addAll(List.of("--features", FEATURES));
        all.addAll(List.of(args));
        return Main.run(all.toArray(String[]::new));
    }

    /** Every {@code every}-th row's features against {@link SqlFeatures}. */
    private static void checkSample(DuckDb duck, String parquet, int samples) {
        SqlFeatures sql = new SqlFeatures(duck, Path.of(config.rootUri()).resolve("warehouse"));
        List<Map<String, Object>> rows =
                duck.rows(
                        "select user_id, epoch_ms(event_timestamp) as t, * exclude (user_id)"
                                + " from read_parquet('"
                                + parquet
                                + "') using sample "
                                + samples
                                + " rows (reservoir, 5)");
        assertThat(rows).hasSize(samples);
        int known = 0;
        for (Map<String, Object> row : rows) {
            String user = row.get("user_id").toString();
            long t = ((Number) row.get("t")).longValue();
            for (String ref : FEATURES.split(",")) {
                String[] vf = ref.split(":");
                FeatureViewConfig view = config.featureView(vf[0]).orElseThrow();
                TableConfig table = config.table(view.source()).orElseThrow();
                FeatureConfig f =
                        view.features().stream()
                                .filter(x -> x.name().equals(vf[1]))
                                .findFirst()
                                .orElseThrow();
                Object got = row.get(vf[0] + "__" + vf[1]);
                if (!sql.known(view, table, user, t)) {
                    assertThat(got).as("%s %s at %d", ref, user, t).isNull();
                    continue;
                }
                known++;
                Object want = sql.value(view, table, f, user, t).get("v");
                assertThat(((Number) got).doubleValue())
                        .as("%s %s at %d", ref, user, t)
                        .isEqualTo(((Number) want).doubleValue());
            }
        }
        assertThat(known).as("known users among the sampled rows").isPositive();
    }

    private static String classpath() {
        return ChildJava.classPath();
    }

    /** The command of a child JVM of the test's heap running {@code args}. */
    private static List<String> command(String... args) {
        List<String> command = ChildJava.command(HEAP, DIRECT, "-XX:+ExitOnOutOfMemoryError");
        command.addAll(List.of(args));
        return command;
    }

    /** A child JVM running {@code args}, its output going to {@code log}. */
    private static Process start(Path log, String... args) throws IOException {
        return new ProcessBuilder(command(args))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /** A child JVM running {@code args} until it exits. */
    private static ChildJava.Exited child(String... args) throws IOException, InterruptedException {
        return ChildJava.run(
                command(args),
                Map.of(),
                Files.createTempFile(work, "child-", ".log"),
                Duration.ofMinutes(8));
    }

    /** Reads a spine whole into memory, as the builder once did. */
    static final class HoldSpine {
        public static void main(String[] args) throws IOException {
            System.out.println("rows: " + Spine.read(Path.of(args[0])).rows().size());
        }
    }
}
