package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testing.TestConfigs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    @Test
    void shouldDescribeEveryCommandInHelp() {
        for (String command :
                new String[] {
                    "demo", "ingest", "compact", "ddl", "features", "get", "generate", "bench"
                }) {
            out.reset();
            assertThat(Main.run(command, "--help")).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: sluice " + command);
        }
    }

    @Test
    void shouldNameTheOptionWhenAnArgumentIsBad() {
        assertThat(Main.run("demo", "--events", "lots")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--events", "lots");

        err.reset();
        assertThat(Main.run("demo", "--events", "0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--events must be at least 1");
    }

    @Test
    void shouldNameTheGeneratorOptionThatIsOutOfRange() {
        assertThat(Main.run("generate", "--config", "unused.yaml", "--duplicate-rate", "1.5"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--duplicate-rate", "1.5");
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

        assertThat(Main.run("ingest", "--config", config.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("sluice.yaml:10", "tables[0].buckets");
    }

    @Test
    void shouldReportAMissingConfigFile(@TempDir Path dir) {
        assertThat(Main.run("generate", "--config", dir.resolve("nope.yaml").toString()))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("nope.yaml");
    }

    @Test
    void shouldNameTheCompactOptionThatIsWrong() {
        assertThat(Main.run("compact", "--config", "unused.yaml", "--from", "yesterday"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from", "yesterday");

        err.reset();
        assertThat(
                        Main.run(
                                "compact",
                                "--config",
                                "unused.yaml",
                                "--from",
                                "2026-11-21T06",
                                "--to",
                                "2026-11-21T00"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from", "must be before --to");

        err.reset();
        assertThat(Main.run("compact", "--config", "unused.yaml", "--force", "--continuous"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--force", "--continuous");
    }

    @Test
    void shouldListTheTablesWhenDdlIsAskedForAnUnknownOne() {
        assertThat(Main.run("ddl", "--config", TestConfigs.referenceFile().toString(), "orders"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("'orders'", "page_views, add_to_cart, purchases");
    }

    @Test
    void shouldNameTheGetOptionThatIsWrong() {
        String config = TestConfigs.referenceFile().toString();
        assertThat(
                        Main.run(
                                "get",
                                "--config",
                                config,
                                "--features",
                                "user_purchases",
                                "--entities",
                                "u1"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--features", "user_purchases");

        err.reset();
        assertThat(
                        Main.run(
                                "get",
                                "--config",
                                config,
                                "--features",
                                "user_purchases:spend_24h",
                                "--entities",
                                "u1",
                                "--at",
                                "yesterday"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--at", "yesterday");
    }

    @Test
    void shouldRefuseAnOnlineStoreThatIsNotRedis() {
        assertThat(
                        Main.run(
                                "features",
                                "--config",
                                TestConfigs.referenceFile().toString(),
                                "--online",
                                "http://cache:6379"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--online", "redis://");
    }

    @Test
    void shouldNameTheBackfillOptionThatIsMissingOrMisused() {
        assertThat(Main.run("features", "--config", "unused.yaml", "--backfill")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--backfill needs both --from and --to");

        err.reset();
        assertThat(
                        Main.run(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--from",
                                "2026-11-21T00"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("missing --to");

        err.reset();
        assertThat(Main.run("features", "--config", "unused.yaml", "--from", "2026-11-21T00"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from is only for --backfill");

        err.reset();
        assertThat(Main.run("features", "--config", "unused.yaml", "--to", "2026-11-21T06"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--to is only for --backfill");

        err.reset();
        assertThat(
                        Main.run(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--bounded",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                "2026-11-21T06"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--bounded cannot be used with --backfill");

        err.reset();
        assertThat(
                        Main.run(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--from",
                                "yesterday",
                                "--to",
                                "2026-11-21T06"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from", "'yesterday'");

        err.reset();
        assertThat(
                        Main.run(
                                "features",
                                "--config",
                                "unused.yaml",
                                "--backfill",
                                "--from",
                                "2026-11-21T06",
                                "--to",
                                "2026-11-21T06"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from", "must be before --to");
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
                        Main.run(
                                "features",
                                "--config",
                                dir.resolve("sluice.yaml").toString(),
                                "--backfill",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                "2026-11-21T06"))
                .isEqualTo(2);
        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(message)
                .contains(
                        "--backfill: cannot backfill [2026-11-21T00:00:00Z, 2026-11-21T06:00:00Z)",
                        "not complete yet (no _SUCCESS): purchases dt=2026-11-21/hr=03",
                        "not compacted, or compacted from an older landing manifest: purchases"
                                + " dt=2026-11-21/hr=04",
                        "sluice compact --from 2026-11-21T00:00:00Z --to 2026-11-21T06:00:00Z")
                .doesNotContain("hr=07", "hr=23");
        assertThat(dir.resolve("features")).as("nothing written").doesNotExist();

        err.reset();
        String thisHour =
                java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).toString();
        assertThat(
                        Main.run(
                                "features",
                                "--config",
                                dir.resolve("sluice.yaml").toString(),
                                "--backfill",
                                "--from",
                                "2026-11-21T00",
                                "--to",
                                thisHour.substring(0, 13)))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--to " + thisHour, "is not over until", "allowed_lateness");
    }
}
