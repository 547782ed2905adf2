package io.sluice.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** DuckDB in memory: the independent reader that tests check the warehouse with. */
public final class DuckDb implements AutoCloseable {

    private final Connection connection;

    public DuckDb() {
        try {
            connection = DriverManager.getConnection("jdbc:duckdb:");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every row of {@code sql}, column name to value, in column order. */
    public List<Map<String, Object>> rows(String sql) {
        try (Statement st = connection.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            ResultSetMetaData meta = rs.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnLabel(i), rs.getObject(i));
                }
                rows.add(row);
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Runs a statement that returns no rows ({@code create}, {@code copy}, {@code set}). */
    public void execute(String sql) {
        try (Statement st = connection.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** The single value of a one-row, one-column query. */
    public Object value(String sql) {
        List<Map<String, Object>> rows = rows(sql);
        if (rows.size() != 1 || rows.get(0).size() != 1) {
            throw new IllegalStateException(sql + " returned " + rows);
        }
        return rows.get(0).values().iterator().next();
    }

    public long count(String sql) {
        return ((Number) value(sql)).longValue();
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
