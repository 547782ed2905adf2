package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.net.Ports;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestConfigs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream oldErr;
    private PrintStream oldOut;

    @BeforeEach
    void capture() {
        oldErr = System.err;
        oldOut = System.out;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(oldErr);
        System.setOut(oldOut);
    }

    /** Runs the CLI, expects it to refuse its arguments (exit 2) and returns what it printed. */
    private String refused(List<String> args) {
        return refused(args.toArray(String[]::new));
    }

    private String refused(String... args) {
        err.reset();
        assertThat(Main.run(args)).as(String.join(" ", args)).isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldDescribeEveryCommandInHelp() {
        for (String command :
                new String[] {
                    "demo",
                    "kafka",
                    "cluster",
                    "ingest",
                    "compact",
                    "stop",
                    "ddl",
                    "maintain",
                    "describe",
                    "features",
                    "get",
                    "serve",
                    "check",
                    "training-set",
                    "generate",
                    "bench"
                }) {
            out.reset();
            assertThat(Main.run(command, "--help")).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: sluice " + command);
        }
    }

    @Test
    void shouldNameTheOptionWhenAnArgumentIsBad() {
        assertThat(refused("demo", "--events", "lots")).contains("--events", "lots");

        assertThat(refused("demo", "--events", "0")).contains("--events must be at least 1");
    }

    @Test
    void shouldNameTheKafkaOptionThatIsOutOfRangeBeforeStartingABroker(@TempDir Path dir) {
        Path data = dir.resolve("kafka");
        assertThat(refused("kafka", "--port", "70000", "--data-dir", data.toString()))
                .contains("--port must be between 1 and 65535, got 70000");
        assertThat(refused("kafka", "--partitions", "0", "--data-dir", data.toString()))
                .contains("--partitions must be at least 1");
        assertThat(refused("kafka", "--config", dir.resolve("nope.yaml").toString()))
                .contains("nope.yaml");
        assertThat(data).as("no broker was started").doesNotExist();
    }

    @Test
    void shouldNameTheTargetWhenItIsNoFlinkRestEndpoint(@TempDir Path dir) throws Exception {
        for (String command : new String[] {"ingest", "features", "compact"}) {
            assertThat(refused(command, "--config", "unused.yaml", "--target", "jobmanager"))
                    .contains("--target", "HOST:PORT", "'jobmanager'");
            assertThat(refused(command, "--config", "unused.yaml", "--target", "host:99999"))
                    .contains("--target", "'host:99999'");
        }
        Path yaml = dir.resolve("sluice.yaml");
        ReferenceConfig.writeInto(dir, "localhost:9092");
        assertThat(
                        refused(
                                "features",
                                "--config",
                                yaml.toString(),
                                "--backfill",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                "2026-11-21T01",
                                "--target",
                                "localhost:8081"))
                .contains("--target cannot be used with --backfill");
        String old = System.getProperty(RemoteJob.JAR_PROPERTY);
        try {
            System.setProperty(RemoteJob.JAR_PROPERTY, dir.resolve("none.jar").toString());
            assertThat(refused("ingest", "--config", yaml.toString(), "--target", "localhost:1"))
                    .contains("--target: no job jar to submit at", "none.jar");
            Path jar = Files.writeString(dir.resolve("sluice.jar"), "not really a jar");
            System.setProperty(RemoteJob.JAR_PROPERTY, jar.toString());
            // Below the ephemeral range: no process holds it, and the kernel hands it to none.
            int closed = Ports.unassigned();
            assertThat(
                            refused(
                                    "ingest",
                                    "--config",
                                    yaml.toString(),
                                    "--target",
                                    "127.0.0.1:" + closed))
                    .contains(
                            "--target: no Flink REST endpoint answers at http://127.0.0.1:"
                                    + closed);
        } finally {
            if (old == null) {
                System.clearProperty(RemoteJob.JAR_PROPERTY);
            } else {
                System.setProperty(RemoteJob.JAR_PROPERTY, old);
            }
        }
    }

    @Test
    void shouldNameWhatIsWrongWithAStopOrARestore(@TempDir Path dir) throws Exception {
        ReferenceConfig.writeInto(dir, "localhost:1");
        String yaml = dir.resolve("sluice.yaml").toString();
        assertThat(refused("stop", "--config", yaml, "--target", "127.0.0.1:1", "compactor"))
                .contains("JOB must be one of ingest, features, compact, got compactor");
        assertThat(refused("stop", "--config", yaml, "--target", "local", "ingest"))
                .contains("--target must name a Flink cluster's REST endpoint");
        assertThat(
                        refused(
                                "stop",
                                "--config",
                                yaml,
                                "--target",
                                "127.0.0.1:1",
                                "--timeout",
                                "5",
                                "ingest"))
                .contains("--timeout: must be a duration");
        int closed = Ports.unassigned();
        assertThat(refused("stop", "--config", yaml, "--target", "127.0.0.1:" + closed, "ingest"))
                .contains("--target: no Flink REST endpoint answers at http://127.0.0.1:" + closed);
        String missing = dir.resolve("no-such-savepoint").toString();
        assertThat(
                        refused(
                                "features",
                                "--config",
                                yaml,
                                "--from-savepoint",
                                missing,
                                "--target",
                                "127.0.0.1:" + closed))
                .contains("no savepoint or checkpoint at " + missing);
    }

    @Test
    void shouldNameTheClusterOptionThatIsBadBeforeStartingAnything(@TempDir Path dir)
            throws Exception {
        Path flink = dir.resolve("flink");
        String where = flink.toString();
        assertThat(refused("cluster", "--dir", where, "--port", "70000"))
                .contains("--port must be between 0 and 65535, got 70000");
        assertThat(refused("cluster", "--dir", where, "--slots", "0"))
                .contains("--slots must be at least 1");
        assertThat(refused("cluster", "--dir", where, "--parallelism", "5"))
                .contains("--parallelism must be between 1 and --slots (4), got 5");
        assertThat(refused("cluster", "--dir", where, "--taskmanager-memory", "lots"))
                .contains("--taskmanager-memory", "'lots'");
        assertThat(refused("cluster", "--dir", where, "--flink-lib", dir.resolve("no").toString()))
                .contains("--flink-lib: cannot list");
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.writeString(lib.resolve("flink-core-2.2.1.jar"), "");
        assertThat(refused("cluster", "--dir", where, "--flink-lib", lib.toString()))
                .contains("--flink-lib:", "holds no flink-runtime jar");
        Files.writeString(lib.resolve("flink-runtime-2.2.1.jar"), "");
        Files.writeString(lib.resolve("sluice.jar"), "");
        assertThat(refused("cluster", "--dir", where, "--flink-lib", lib.toString()))
                .contains("--flink-lib:", "holds a Sluice jar");
        assertThat(flink).as("no cluster was started").doesNotExist();
    }

    @Test
    void shouldNameTheGeneratorOptionThatIsOutOfRange() {
        assertThat(refused("generate", "--config", "unused.yaml", "--duplicate-rate", "1.5"))
                .contains("--duplicate-rate", "1.5");
    }

    @Test
    void shouldNameTheKeyAndLineOfABadConfig(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(
                config,
                "kafka: { bootstrap: localhost:9092 }\n"
                        + "storage: { root: file:./data }\n"
                        + "tables:\n"
                        + "  - name: views\n"
                        + "    topic: v\n"
                        + "    schema: PageView\n"
                        + "    event_time: event_time\n"
                        + "    key: user_id\n"
                        + "    id: event_id\n"
                        + "    buckets: many\n");

        assertThat(refused("ingest", "--config", config.toString()))
                .contains("sluice.yaml:10", "tables[0].buckets");
    }

    @Test
    void shouldReportAMissingConfigFile(@TempDir Path dir) {
        assertThat(refused("generate", "--config", dir.resolve("nope.yaml").toString()))
                .contains("nope.yaml");
    }

    @Test
    void shouldNameTheCompactOptionThatIsWrong() {
        assertThat(refused("compact", "--config", "unused.yaml", "--from", "yesterday"))
                .contains("--from", "yesterday");

        assertThat(
                        refused(
                                "compact",
                                "--config",
                                "unused.yaml",
                                "--from",
                                "2026-11-21T06",
                                "--to",
                                "2026-11-21T00"))
                .contains("--from", "must be before --to");

        assertThat(refused("compact", "--config", "unused.yaml", "--force", "--continuous"))
                .contains("--force", "--continuous");
    }

    @Test
    void shouldListTheTablesWhenDdlIsAskedForAnUnknownOne() {
        assertThat(refused("ddl", "--config", TestConfigs.referenceFile().toString(), "orders"))
                .contains("'orders'", "page_views, add_to_cart, purchases");
    }

    @Test
    void shouldNameTheGetOptionThatIsWrong() {
        String config = TestConfigs.referenceFile().toString();
        assertThat(
                        refused(
                                "get",
                                "--config",
                                config,
                                "--features",
                                "user_purchases",
                                "--entities",
                                "u1"))
                .contains("--features", "user_purchases");

        assertThat(
                        refused(
                                "get",
                                "--config",
                                config,
                                "--features",
                                "user_purchases:spend_24h",
                                "--entities",
                                "u1",
                                "--at",
                                "yesterday"))
                .contains("--at", "yesterday");
    }

    @Test
    void shouldNameTheServeOptionThatIsWrongBeforeListening() throws Exception {
        String config = TestConfigs.referenceFile().toString();
        assertThat(refused("serve", "--config", config, "--online", "http://cache:6379"))
                .contains("--online", "redis://");
        assertThat(refused("serve", "--config", config, "--port", "70000"))
                .contains("--port must be between 0 and 65535, got 70000");
        assertThat(refused("serve", "--config", config, "--max-entities", "0"))
                .contains("--max-entities");
        assertThat(refused("serve", "--config", config, "--event-loops", "0"))
                .contains("--event-loops must be at least 1, got 0");
        assertThat(refused("serve", "--config", config, "--shutdown-delay", "-1"))
                .contains("--shutdown-delay and --drain-timeout must not be negative");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(taken.getLocalPort());
            assertThat(
                            refused(
                                    "serve",
                                    "--config",
                                    config,
                                    "--online",
                                    "redis://127.0.0.1:1",
                                    "--host",
                                    "127.0.0.1",
                                    "--port",
                                    port))
                    .contains("--host, --port: cannot listen on 127.0.0.1:" + port, "in use")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void shouldRefuseAnOnlineStoreThatIsNotRedis() {
        assertThat(
                        refused(
                                "features",
                                "--config",
                                TestConfigs.referenceFile().toString(),
                                "--online",
                                "http://cache:6379"))
                .contains("--online", "redis://");
    }

    @Test
    void shouldNameTheBackfillOptionThatIsMissingOrMisused() {
        assertThat(refused("features", "--config", "unused.yaml", "--backfill"))
                .contains("--backfill needs both --from and --to");

        assertThat(
                        refused(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--from",
                                "2026-11-21T00"))
                .contains("missing --to");

        assertThat(refused("features", "--config", "unused.yaml", "--from", "2026-11-21T00"))
                .contains("--from is only for --backfill");

        assertThat(refused("features", "--config", "unused.yaml", "--to", "2026-11-21T06"))
                .contains("--to is only for --backfill");

        assertThat(
                        refused(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--bounded",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                "2026-11-21T06"))
                .contains("--bounded cannot be used with --backfill");

        assertThat(
                        refused(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--from",
                                "yesterday",
                                "--to",
                                "2026-11-21T06"))
                .contains("--from", "'yesterday'");

        assertThat(
                        refused(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--from",
                                "2026-11-21T06",
                                "--to",
                                "2026-11-21T06"))
                .contains("--from", "must be before --to");
    }

    @Test
    void shouldRefuseToStartIngestWithoutStateOverLandedHours(@TempDir Path dir) throws Exception {
        ReferenceConfig.writeInto(dir, "localhost:1");
        Path hour = Files.createDirectories(dir.resolve("raw/purchases/dt=2026-11-21/hr=03"));
        Files.write(hour.resolve("part-a-0.avro"), new byte[] {1});
        String config = dir.resolve("sluice.yaml").toString();

        assertThat(refused("ingest", "--config", config))
                .contains(
                        "no retained checkpoint of the ingest job",
                        "raw/ already holds 1 landed hours",
                        "--from-savepoint PATH",
                        "--fresh");
        assertThat(refused("ingest", "--config", config, "--fresh", "--from-savepoint", "/x"))
                .contains("--fresh and --from-savepoint exclude each other");
        assertThat(refused("ingest", "--config", config, "--parallelism", "0"))
                .contains("--parallelism must be at least 1, got 0");
    }

    @Test
    void shouldRefuseToBackfillHoursThatAreIncompleteOrNotCompacted(@TempDir Path dir)
            throws Exception {
        ReferenceConfig.writeInto(dir, "localhost:9092");
        // Landing hour 03 of purchases is still open; hour 04 is complete but never compacted.
        Files.createDirectories(dir.resolve("raw/purchases/dt=2026-11-21/hr=03"));
        Path complete = Files.createDirectories(dir.resolve("raw/purchases/dt=2026-11-21/hr=04"));
        Files.writeString(complete.resolve("_SUCCESS"), "{}");
        // Outside the range: neither may be named.
        Files.createDirectories(dir.resolve("raw/purchases/dt=2026-11-21/hr=07"));
        Files.createDirectories(dir.resolve("raw/page_views/dt=2026-11-20/hr=23"));

        assertThat(
                        refused(
                                "features",
                                "--config",
                                dir.resolve("sluice.yaml").toString(),
                                "--backfill",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                "2026-11-21T06"))
                .contains(
                        "--backfill: cannot backfill [2026-11-21T00:00:00Z, 2026-11-21T06:00:00Z)",
                        "not complete yet (no _SUCCESS): purchases dt=2026-11-21/hr=03",
                        "not compacted, or compacted from an older landing manifest: purchases"
                                + " dt=2026-11-21/hr=04",
                        "sluice compact --from 2026-11-21T00:00:00Z --to 2026-11-21T06:00:00Z")
                .doesNotContain("hr=07", "hr=23");
        assertThat(dir.resolve("features")).as("nothing written").doesNotExist();

        String thisHour =
                java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).toString();
        assertThat(
                        refused(
                                "features",
                                "--config",
                                dir.resolve("sluice.yaml").toString(),
                                "--backfill",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                thisHour.substring(0, 13)))
                .contains("--to " + thisHour, "is not over until", "allowed_lateness");
    }

    @Test
    void shouldRefuseTrainingSetRowsPastTheWarehouseUnlessAskedToMarkThem(@TempDir Path dir)
            throws Exception {
        ReferenceConfig.writeInto(dir, "localhost:9");
        // An empty lake: no hour of purchases is complete, so no time is covered. The second row
        // has no entity: NOT_FOUND, whatever the lake holds.
        Path spine = dir.resolve("spine.csv");
        Files.writeString(
                spine,
                "user_id,event_timestamp\nu1,2026-11-20T03:00:00.000001Z\n,2026-11-20T03:00:00Z\n");
        Path file = dir.resolve("train.parquet");
        List<String> args =
                List.of(
                        "training-set",
                        "--config",
                        dir.resolve("sluice.yaml").toString(),
                        "--spine",
                        spine.toString(),
                        "--features",
                        "user_purchases:purchases_1h,user_purchases:last_category",
                        "--out",
                        file.toString());
        err.reset();
        assertThat(Main.run(args.toArray(String[]::new))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains(
                        "sluice training-set: refused: 1 of 2 spine rows need events",
                        "view user_purchases, table purchases: hour dt=2026-11-13/hr=03 has not"
                                + " landed or is not complete yet (the warehouse holds no"
                                + " complete, compacted hour of purchases); 1 row, e.g. row 1"
                                + " (user_id u1 at 2026-11-20T03:00:00.000001Z)",
                        "--incomplete mark")
                .doesNotContain("Exception");
        assertThat(file).doesNotExist();

        List<String> marked = new ArrayList<>(args);
        marked.addAll(List.of("--incomplete", "mark", "--with-status"));
        assertThat(Main.run(marked.toArray(String[]::new))).isZero();
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> rows =
                    duck.rows("select * from read_parquet('" + file + "') order by user_id");
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0).get("user_id")).isEqualTo("");
            assertThat(rows.get(0).get("user_purchases__purchases_1h__status"))
                    .isEqualTo("NOT_FOUND");
            assertThat(rows.get(1).get("user_purchases__purchases_1h__status"))
                    .isEqualTo("INCOMPLETE");
            assertThat(rows.get(1).get("user_purchases__last_category__status"))
                    .isEqualTo("INCOMPLETE");
            assertThat(rows.get(1).get("user_purchases__purchases_1h")).isNull();
        }

        List<String> bad = new ArrayList<>(args);
        bad.addAll(List.of("--incomplete", "sometimes"));
        assertThat(refused(bad.toArray(String[]::new))).contains("--incomplete", "'sometimes'");

        // The reference config has a catalog, whose table has no snapshot yet.
        assertThat(refused(with(args, "--as-of-snapshot", "42")))
                .contains("--as-of-snapshot: table purchases has no snapshot 42")
                .contains("its current one is none");
        assertThat(refused(with(args, "--as-of-snapshot", "orders=42")))
                .contains(
                        "--as-of-snapshot: table orders is not read by the requested features"
                                + " (they read purchases)");
        assertThat(refused(with(args, "--as-of-snapshot", "purchases=latest")))
                .contains("--as-of-snapshot purchases=latest: not a snapshot id");
        assertThat(
                        refused(
                                with(
                                        with(args, "--as-of-snapshot", "1"),
                                        "--as-of-snapshot",
                                        "purchases=2")))
                .contains("--as-of-snapshot: table purchases is pinned twice");
    }

    private static List<String> with(List<String> args, String... more) {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of(more));
        return all;
    }
}
