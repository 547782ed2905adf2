package io.sluice.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.TableConfig;
import io.sluice.lake.HiveBucketing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The point lookups of {@link CompactionBenchmark}: DuckDB (in process, over JDBC) finding one
 * key's rows in the plain rewrite, in the compacted hour, and in the key's bucket file only; the
 * bytes each read (DuckDB's JSON profiler) and its median time, over {@value #KEYS} keys spread
 * over the keys' popularity, each lookup {@value #REPEATS} times.
 */
record PointLookups(
        String duckdbVersion,
        long distinctKeys,
        double plainBytes,
        double plainMillis,
        double warehouseBytes,
        double warehouseMillis,
        double bucketBytes,
        double bucketMillis) {

    static final int KEYS = 25;
    static final int REPEATS = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    static PointLookups measure(
            TableConfig table, Path warehouseHour, Path plain, boolean metadataCache)
            throws Exception {
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            String version = scalar(duck, "select version()");
            if (metadataCache) {
                try (Statement st = duck.createStatement()) {
                    st.execute("set parquet_metadata_cache = true");
                }
            }
            List<String> byPopularity = new ArrayList<>();
            try (Statement st = duck.createStatement();
                    ResultSet rs =
                            st.executeQuery(
                                    "select "
                                            + table.key()
                                            + " from read_parquet('"
                                            + plain
                                            + "') group by all order by count(*) desc, 1")) {
                while (rs.next()) {
                    byPopularity.add(rs.getString(1));
                }
            }
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                keys.add(byPopularity.get((int) ((long) i * byPopularity.size() / KEYS)));
            }
            String column = table.key();
            String plainSql =
                    "select * from read_parquet('" + plain + "') where " + column + " = ?";
            String allSql =
                    "select * from read_parquet('"
                            + warehouseHour
                            + "/*.parquet') where "
                            + column
                            + " = ?";
            List<Double> pb = new ArrayList<>();
            List<Double> pt = new ArrayList<>();
            List<Double> wb = new ArrayList<>();
            List<Double> wt = new ArrayList<>();
            List<Double> bb = new ArrayList<>();
            List<Double> bt = new ArrayList<>();
            Path profile = Files.createTempFile("sluice-duckdb-profile-", ".json");
            for (String key : keys) {
                String bucketSql =
                        String.format(
                                "select * from read_parquet('%s/%06d_0_*.parquet') where %s = ?",
                                warehouseHour, HiveBucketing.bucket(key, table.buckets()), column);
                long expected = -1;
                for (String[] q :
                        new String[][] {{plainSql, "p"}, {allSql, "w"}, {bucketSql, "b"}}) {
                    double bytes = bytesRead(duck, q[0], key, profile);
                    long found = count(duck, q[0], key);
                    if (expected >= 0 && found != expected) {
                        throw new IllegalStateException(
                                "lookups disagree for " + key + ": " + found + " vs " + expected);
                    }
                    expected = found;
                    for (int r = 0; r < REPEATS; r++) {
                        long t = System.nanoTime();
                        count(duck, q[0], key);
                        double ms = (System.nanoTime() - t) / 1e6;
                        switch (q[1]) {
                            case "p" -> pt.add(ms);
                            case "w" -> wt.add(ms);
                            default -> bt.add(ms);
                        }
                    }
                    switch (q[1]) {
                        case "p" -> pb.add(bytes);
                        case "w" -> wb.add(bytes);
                        default -> bb.add(bytes);
                    }
                }
            }
            Files.deleteIfExists(profile);
            return new PointLookups(
                    version,
                    byPopularity.size(),
                    BenchmarkReport.median(pb),
                    BenchmarkReport.median(pt),
                    BenchmarkReport.median(wb),
                    BenchmarkReport.median(wt),
                    BenchmarkReport.median(bb),
                    BenchmarkReport.median(bt));
        }
    }

    /** Runs the lookup once with DuckDB's JSON profiler on and returns the bytes it read. */
    private static double bytesRead(Connection duck, String sql, String key, Path profile)
            throws SQLException, IOException {
        try (Statement st = duck.createStatement()) {
            st.execute("pragma enable_profiling = 'json'");
            st.execute("pragma profiling_output = '" + profile + "'");
        }
        count(duck, sql, key);
        try (Statement st = duck.createStatement()) {
            st.execute("pragma disable_profiling");
        }
        return JSON.readTree(profile.toFile()).path("io").path("total_bytes_read").asDouble();
    }

    /** Runs a lookup, reading every row and column it returns; returns the row count. */
    private static long count(Connection duck, String sql, String key) throws SQLException {
        try (PreparedStatement ps = duck.prepareStatement(sql)) {
            ps.setString(1, key);
            long n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int c = 1; c <= columns; c++) {
                        rs.getObject(c);
                    }
                    n++;
                }
            }
            return n;
        }
    }

    private static String scalar(Connection duck, String sql) throws SQLException {
        try (Statement st = duck.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
