package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testing.DuckDb;
import io.sluice.testing.ReadmeBlocks;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The README's query examples, run on a demo's data directory: every code block after a {@code <!--
 * checked: duckdb -->} line is run statement by statement by DuckDB, with {@code DIR} the
 * directory, and each statement must return rows; every {@code 'DIR/…'} path in a block after a
 * {@code <!-- checked: paths -->} line (the Polars and pandas examples, whose engines do not run
 * here) must name data files. Spark runs its examples in {@code interop}'s {@code
 * SparkReaderITCase}.
 */
final class ReadmeExamples {

    private static final Pattern PATH = Pattern.compile("[\"'](DIR/[^\"']+)[\"']");

    private ReadmeExamples() {}

    /** Runs every marked DuckDB statement on {@code dir}; returns how many ran. */
    static int runDuckDb(Path dir) throws IOException {
        int ran = 0;
        try (DuckDb duck = new DuckDb()) {
            for (String block : ReadmeBlocks.blocks("duckdb")) {
                for (String statement : ReadmeBlocks.statements(block)) {
                    String sql = statement.replace("DIR/", dir + "/");
                    assertThat(duck.rows(sql))
                            .as("README example returns rows:%n%s", sql)
                            .isNotEmpty();
                    ran++;
                }
            }
        }
        return ran;
    }

    /** Checks every {@code DIR/} path of the marked blocks names data files; returns how many. */
    static int checkPaths(Path dir) throws IOException {
        int checked = 0;
        for (String block : ReadmeBlocks.blocks("paths")) {
            Matcher m = PATH.matcher(block);
            while (m.find()) {
                String path = m.group(1).substring("DIR/".length());
                assertThat(dataFiles(dir, path))
                        .as("files of README path DIR/%s", path)
                        .isPositive();
                checked++;
            }
        }
        return checked;
    }

    private static long dataFiles(Path dir, String path) throws IOException {
        Path plain = dir.resolve(path);
        if (!path.contains("*")) {
            if (Files.isRegularFile(plain)) {
                return 1;
            }
            path = path.replaceAll("/+$", "") + "/**.parquet";
        }
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + dir + "/" + path);
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(matcher::matches)
                    .filter(f -> f.getFileName().toString().endsWith(".parquet"))
                    .count();
        }
    }
}
