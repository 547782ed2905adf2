package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.compact.HourCompactor;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.TableDdl;
import io.sluice.lake.TableDdl.Dialect;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestConfigs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice ddl}: the hive dialect parsed by Hive's own SQL parser (hive-exec 3.1.3), the
 * duckdb dialect run by DuckDB over real compacted files, and every dialect for a file: and an s3:
 * location.
 */
class DdlCommandTest {

    @Test
    void shouldPrintDdlThatHiveParsesAsTheBucketedPartitionedTable() throws Exception {
        String ddl = ddl("purchases");
        assertThat(ddl)
                .contains(
                        "PARTITIONED BY (`dt` STRING, `hr` STRING)",
                        "CLUSTERED BY (`user_id`) SORTED BY (`user_id` ASC, `event_time` ASC,"
                                + " `event_id` ASC) INTO 16 BUCKETS",
                        "'bucketing_version'='2'",
                        "`price` FLOAT",
                        "`event_time` TIMESTAMP",
                        "`device` STRING",
                        "STORED AS PARQUET");

        List<String> statements = statements(ddl);
        assertThat(statements).hasSize(2);
        String ast = hiveParse(statements.get(0));
        assertThat(ast)
                .contains(
                        "TOK_CREATETABLE",
                        "EXTERNAL",
                        "TOK_TABLEPARTCOLS",
                        "TOK_ALTERTABLE_BUCKETS",
                        "TOK_TABSORTCOLNAMEASC",
                        "TOK_FILEFORMAT_GENERIC",
                        "TOK_TABLELOCATION",
                        "'bucketing_version'");
        // The bucket count and every column reach Hive's tree.
        assertThat(ast).containsPattern("TOK_ALTERTABLE_BUCKETS[\\s\\S]*\\n\\s+16\\n");
        for (String column : new String[] {"`event_id`", "`coupon`", "`device`", "`dt`", "`hr`"}) {
            assertThat(ast).contains(column);
        }
        assertThat(hiveParse(statements.get(1))).contains("TOK_MSCK", "purchases");
    }

    @Test
    void shouldPrintEveryDialectForAFileAndAnS3Location() throws Exception {
        TableConfig purchases = reference().table("purchases").orElseThrow();
        for (String location :
                List.of(
                        "file:/data/lake/warehouse/purchases",
                        "s3://bucket/lake/warehouse/purchases")) {
            URI uri = URI.create(location);
            String hive = TableDdl.script(purchases, uri, Dialect.HIVE);
            assertThat(hive).contains("LOCATION '" + location + "'");
            assertThat(hiveParse(statements(hive).get(0))).contains("'" + location + "'");

            assertThat(TableDdl.script(purchases, uri, Dialect.SPARK))
                    .contains(
                            "USING PARQUET",
                            "PARTITIONED BY (`dt`, `hr`)",
                            "LOCATION '" + location + "'",
                            "MSCK REPAIR TABLE `purchases`;")
                    .doesNotContain("CLUSTERED BY");

            String trino = TableDdl.script(purchases, uri, Dialect.TRINO);
            List<String> trinoStatements = statements(trino);
            assertThat(trinoStatements).hasSize(2);
            assertThat(trinoParse(trinoStatements.get(0)))
                    .startsWith("CreateTable ")
                    .contains(
                            "external_location",
                            location,
                            "bucketed_by",
                            "bucket_count",
                            "sorted_by",
                            "partitioned_by");
            assertThat(trinoParse(trinoStatements.get(1)))
                    .startsWith("Call ")
                    .contains("sync_partition_metadata");
            assertThat(trino)
                    .contains(
                            "CREATE TABLE hive.\"default\".\"purchases\" (",
                            "\"event_time\" timestamp(3) COMMENT",
                            "\"price\" real",
                            "\"quantity\" integer",
                            "\"device\" varchar",
                            "external_location = '" + location + "'",
                            "format = 'PARQUET'",
                            "partitioned_by = ARRAY['dt', 'hr']",
                            "bucketed_by = ARRAY['user_id']",
                            "bucketing_version = 2",
                            "bucket_count = 16",
                            "sorted_by = ARRAY['user_id', 'event_time', 'event_id']",
                            "hive.timestamp-precision",
                            "CALL hive.system.sync_partition_metadata('default', 'purchases',"
                                    + " 'ADD');")
                    .doesNotContain("timestamp(6) ");
        }
        assertThat(TableDdl.script(purchases, URI.create("file:/data/w/purchases"), Dialect.DUCKDB))
                .contains("read_parquet('/data/w/purchases/*/*/*.parquet'");
        assertThat(
                        TableDdl.script(
                                purchases, URI.create("s3://bucket/w/purchases"), Dialect.DUCKDB))
                .contains("read_parquet('s3://bucket/w/purchases/*/*/*.parquet'", "httpfs");
    }

    /**
     * DuckDB runs its dialect as printed over a real compacted hour: the view has every column with
     * its type, and text comparisons match the enum column. An s3: location fails only for want of
     * the httpfs extension (no network here), never for its syntax.
     */
    @Test
    void shouldPrintADuckDbViewThatDuckDbRunsOverTheWarehouse(@TempDir Path root) throws Exception {
        SluiceConfig config = TestConfigs.shop(root, "localhost:1", "t");
        TableConfig purchases = config.table("purchases").orElseThrow();
        LandingHours.write(
                root,
                purchases,
                GeneratorOptions.defaults(500, 3)
                        .withStart(Instant.parse("2026-11-21T03:00:00Z"))
                        .withSpan(Duration.ofHours(1))
                        .withRates(0, 0, 0),
                2,
                true);
        new HourCompactor(purchases, root).compact("dt=2026-11-21/hr=03", false);
        String view =
                TableDdl.script(
                        purchases, config.tablePath("warehouse", "purchases"), Dialect.DUCKDB);
        try (DuckDb duck = new DuckDb()) {
            for (String statement : statements(view)) {
                duck.execute(statement);
            }
            Map<String, String> types = new java.util.TreeMap<>();
            for (Map<String, Object> r : duck.rows("describe purchases")) {
                types.put((String) r.get("column_name"), (String) r.get("column_type"));
            }
            assertThat(types)
                    .containsEntry("device", "VARCHAR")
                    .containsEntry("event_time", "TIMESTAMP WITH TIME ZONE")
                    .containsEntry("price", "FLOAT")
                    .containsEntry("quantity", "INTEGER")
                    .containsEntry("dt", "VARCHAR")
                    .containsEntry("hr", "VARCHAR")
                    .hasSize(purchases.schema().getFields().size() + 2);
            long rows = duck.count("select count(*) from purchases where hr = '03'");
            assertThat(rows).isPositive();
            assertThat(
                            duck.count(
                                    "select count(*) from purchases where device in ('WEB', 'IOS',"
                                            + " 'ANDROID')"))
                    .isEqualTo(rows);

            String s3 =
                    TableDdl.script(
                            purchases,
                            URI.create("s3://bucket/lake/warehouse/purchases"),
                            Dialect.DUCKDB);
            duck.execute("SET autoinstall_known_extensions = false");
            assertThatThrownBy(() -> statements(s3).forEach(duck::execute))
                    .hasMessageContaining("httpfs")
                    .hasMessageNotContaining("Parser Error");
        }
    }

    @Test
    void shouldNameTheDialectOptionWhenItIsUnknown() {
        assertThat(DdlCommand.dialect("TRINO")).isEqualTo(Dialect.TRINO);
        assertThatThrownBy(() -> DdlCommand.dialect("presto"))
                .hasMessage("--dialect: 'presto' is not one of hive, spark, trino, duckdb");
    }

    private static SluiceConfig reference() throws Exception {
        return SluiceConfig.load(TestConfigs.referenceFile());
    }

    /** The statements of a script, without their {@code --} notes and final semicolons. */
    static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            if (line.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.endsWith(";")) {
                statements.add(current.toString().strip().replaceFirst(";$", ""));
                current.setLength(0);
            }
        }
        assertThat(current.toString()).isBlank();
        return statements;
    }

    private static String ddl(String table) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream old = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertThat(Main.run("ddl", "--config", TestConfigs.referenceFile().toString(), table))
                    .isZero();
        } finally {
            System.setOut(old);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Hive's ParseDriver, from jars the build copied to target/hive-parser, kept apart. */
    private static String hiveParse(String statement) throws Exception {
        try (URLClassLoader hive = isolated("hive-parser", 5)) {
            Class<?> driver = hive.loadClass("org.apache.hadoop.hive.ql.parse.ParseDriver");
            Object tree =
                    driver.getMethod("parse", String.class)
                            .invoke(driver.getConstructor().newInstance(), statement);
            return (String) tree.getClass().getMethod("dump").invoke(tree);
        }
    }

    /**
     * Trino's SqlParser, from jars the build copied to target/trino-parser, kept apart: the
     * statement's tree as its class name and its {@code toString}.
     */
    private static String trinoParse(String statement) throws Exception {
        try (URLClassLoader trino = isolated("trino-parser", 4)) {
            Class<?> parser = trino.loadClass("io.trino.sql.parser.SqlParser");
            Object tree =
                    parser.getMethod("createStatement", String.class)
                            .invoke(parser.getConstructor().newInstance(), statement);
            return tree.getClass().getSimpleName() + " " + tree;
        }
    }

    private static URLClassLoader isolated(String dir, int jarCount) throws Exception {
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("target", dir))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".jar")).toList()) {
                jars.add(f.toUri().toURL());
            }
        }
        assertThat(jars).hasSize(jarCount);
        return new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
}
