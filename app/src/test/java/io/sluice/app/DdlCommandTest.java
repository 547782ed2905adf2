package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testing.TestConfigs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@code sluice ddl}, parsed by Hive's own SQL parser (hive-exec 3.1.3). */
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
                        "STORED AS PARQUET");

        String ast = hiveParse(ddl);
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
    private static String hiveParse(String ddl) throws Exception {
        URL[] jars;
        try (Stream<Path> files = Files.list(Path.of("target", "hive-parser"))) {
            jars =
                    files.filter(f -> f.toString().endsWith(".jar"))
                            .map(
                                    f -> {
                                        try {
                                            return f.toUri().toURL();
                                        } catch (java.net.MalformedURLException e) {
                                            throw new IllegalStateException(e);
                                        }
                                    })
                            .toArray(URL[]::new);
        }
        assertThat(jars).hasSize(5);
        try (URLClassLoader hive = new URLClassLoader(jars, ClassLoader.getPlatformClassLoader())) {
            Class<?> driver = hive.loadClass("org.apache.hadoop.hive.ql.parse.ParseDriver");
            Object tree =
                    driver.getMethod("parse", String.class)
                            .invoke(
                                    driver.getConstructor().newInstance(),
                                    ddl.strip().replaceFirst(";$", ""));
            return (String) tree.getClass().getMethod("dump").invoke(tree);
        }
    }
}
