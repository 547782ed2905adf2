package io.sluice.features.online;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The embedded online store: one SQLite file in WAL mode (readers never wait for the writer), one
 * row per tile, compare-and-set as an upsert that only replaces an older version, and expiry as a
 * column that reads filter on and writes sweep. A read is one range scan of the primary key per run
 * of tiles, so it costs what the entity holds, not how long its windows are. How far the features
 * job has written a view is the table {@code written}, a row per sink subtask ({@link
 * WrittenThrough}).
 */
public final class SqliteOnlineStore implements OnlineStore {

    private static final String UPSERT =
            "INSERT INTO tiles (view, entity, level, start, version, payload, expire_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT (view, entity, level, start) DO UPDATE SET"
                    + " version = excluded.version, payload = excluded.payload,"
                    + " expire_at = excluded.expire_at"
                    + " WHERE excluded.version >= tiles.version";

    /** A run of one (view, entity, level)'s tiles: a range scan of the primary key. */
    private static final String SELECT_RANGE =
            "SELECT start, payload FROM tiles WHERE view = ? AND entity = ? AND level = ?"
                    + " AND start >= ? AND start < ? AND expire_at > ?";

    /** The page cache of each connection, in KiB (a negative {@code cache_size} is KiB). */
    static final int PAGE_CACHE_KIB = 64 * 1024;

    private final Connection connection;

    /** Opens (creating if needed) the store in {@code file}. */
    public SqliteOnlineStore(Path file) throws IOException {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            connection = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
            try (Statement st = connection.createStatement()) {
                st.execute("PRAGMA journal_mode = WAL");
                // Every commit is on disk before it returns: in WAL mode, FULL syncs the log at
                // each commit, NORMAL only at the log's checkpoints. The features job's sink
                // flushes before a Flink checkpoint completes and counts those tiles as written;
                // a commit that a power loss or an OS crash undid would leave tiles that nothing
                // writes again. The sink commits a batch at most every flush interval (100 ms).
                st.execute("PRAGMA synchronous = FULL");
                st.execute("PRAGMA busy_timeout = 10000");
                // A page cache of 64 MiB (native memory, taken as pages are read) instead of
                // SQLite's 2 MiB: upserts touch leaf pages all over the key range, which the
                // default cache kept reading again. On one writer thread, 600,000 and 900,000
                // upserts of 5,000 entities' tiles in batches of 10,000 took 25.0, 24.5 and 26.3 µs
                // each with the default and 14.3 and 17.9 µs with this; 100-entity reads in `bench
                // features` had a p50 of 3.7 and 5.8 ms against 6.9 and 7.0 ms.
                st.execute("PRAGMA cache_size = " + -PAGE_CACHE_KIB);
                st.execute(
                        "CREATE TABLE IF NOT EXISTS tiles (view TEXT NOT NULL, entity TEXT NOT"
                                + " NULL, level INTEGER NOT NULL, start INTEGER NOT NULL,"
                                + " version INTEGER NOT NULL, payload BLOB NOT NULL,"
                                + " expire_at INTEGER NOT NULL,"
                                + " PRIMARY KEY (view, entity, level, start)) WITHOUT ROWID");
                st.execute("CREATE INDEX IF NOT EXISTS tiles_expiry ON tiles (expire_at)");
                st.execute(
                        "CREATE TABLE IF NOT EXISTS written (view TEXT NOT NULL, mark TEXT NOT"
                                + " NULL, watermark INTEGER NOT NULL, PRIMARY KEY (view, mark))"
                                + " WITHOUT ROWID");
            }
            connection.setAutoCommit(false);
        } catch (SQLException e) {
            throw new IOException("Cannot open the SQLite online store " + file + ": " + e, e);
        }
    }

    @Override
    public int write(List<TileWrite> writes) throws IOException {
        return transaction(
                "SQLite tile write failed: ",
                c -> {
                    try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
                        for (TileWrite w : writes) {
                            ps.setString(1, w.key().view());
                            ps.setString(2, w.key().entity());
                            ps.setInt(3, w.key().level().ordinal());
                            ps.setLong(4, w.key().start());
                            ps.setLong(5, w.version());
                            ps.setBytes(6, w.payload());
                            ps.setLong(7, w.expireAt());
                            ps.addBatch();
                        }
                        int applied = 0;
                        for (int n : ps.executeBatch()) {
                            applied += Math.max(0, n);
                        }
                        return applied;
                    }
                });
    }

    @Override
    public List<Found> read(List<RangeRead> reads, long now) throws IOException {
        return transaction(
                "SQLite tile read failed: ",
                c -> {
                    List<Found> found = new ArrayList<>(reads.size());
                    try (PreparedStatement ps = c.prepareStatement(SELECT_RANGE)) {
                        for (RangeRead read : reads) {
                            Found f = new Found();
                            for (TileRange range : read.ranges()) {
                                ps.setString(1, read.view());
                                ps.setString(2, read.entity());
                                ps.setInt(3, range.level().ordinal());
                                ps.setLong(4, range.from());
                                ps.setLong(5, range.to());
                                ps.setLong(6, now);
                                try (ResultSet rs = ps.executeQuery()) {
                                    while (rs.next()) {
                                        long start = rs.getLong(1);
                                        if (Math.floorMod(start - range.from(), range.step())
                                                == 0) {
                                            f.of(range.level()).put(start, rs.getBytes(2));
                                        }
                                    }
                                }
                            }
                            found.add(f);
                        }
                    }
                    return found;
                });
    }

    /** How many distinct entities have a live tile in any view. */
    public long entities(long now) throws IOException {
        return transaction(
                "SQLite count failed: ",
                c -> {
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "SELECT count(DISTINCT entity) FROM tiles WHERE expire_at >"
                                            + " ?")) {
                        ps.setLong(1, now);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            return rs.getLong(1);
                        }
                    }
                });
    }

    /** Deletes expired tiles; returns how many. */
    public int expire(long now) throws IOException {
        return transaction(
                "SQLite expiry failed: ",
                c -> {
                    try (PreparedStatement ps =
                            c.prepareStatement("DELETE FROM tiles WHERE expire_at <= ?")) {
                        ps.setLong(1, now);
                        return ps.executeUpdate();
                    }
                });
    }

    @Override
    public void markWritten(String view, int parallelism, int subtask, long watermark)
            throws IOException {
        transaction(
                "SQLite mark write failed: ",
                c -> {
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "INSERT INTO written (view, mark, watermark) VALUES (?, ?, ?)"
                                            + " ON CONFLICT (view, mark) DO UPDATE SET"
                                            + " watermark = excluded.watermark")) {
                        ps.setString(1, view);
                        ps.setString(2, WrittenThrough.field(parallelism, subtask));
                        ps.setLong(3, watermark);
                        return ps.executeUpdate();
                    }
                });
    }

    @Override
    public OptionalLong writtenThrough(String view) throws IOException {
        return transaction(
                "SQLite read failed: ",
                c -> {
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "SELECT mark, watermark FROM written WHERE view = ?")) {
                        ps.setString(1, view);
                        Map<String, Long> marks = new HashMap<>();
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                marks.put(rs.getString(1), rs.getLong(2));
                            }
                        }
                        return WrittenThrough.of(marks);
                    }
                });
    }

    @Override
    public boolean hasTiles(String view) throws IOException {
        return transaction(
                "SQLite read failed: ",
                c -> {
                    try (PreparedStatement ps =
                            c.prepareStatement("SELECT 1 FROM tiles WHERE view = ? LIMIT 1")) {
                        ps.setString(1, view);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next();
                        }
                    }
                });
    }

    @Override
    public long clear(String view) throws IOException {
        return transaction(
                "SQLite delete failed: ",
                c -> {
                    try (PreparedStatement ps =
                                    c.prepareStatement("DELETE FROM tiles WHERE view = ?");
                            PreparedStatement marks =
                                    c.prepareStatement("DELETE FROM written WHERE view = ?")) {
                        ps.setString(1, view);
                        int n = ps.executeUpdate();
                        marks.setString(1, view);
                        marks.executeUpdate();
                        return (long) n;
                    }
                });
    }

    /** The value of {@code PRAGMA name} on the store's connection, for its tests. */
    String pragma(String name) throws IOException {
        return transaction(
                "PRAGMA " + name + " failed: ",
                c -> {
                    try (Statement st = c.createStatement();
                            ResultSet rs = st.executeQuery("PRAGMA " + name)) {
                        return rs.next() ? rs.getString(1) : null;
                    }
                });
    }

    /** Work inside one transaction of the store's connection. */
    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} and commits, or rolls back and fails with {@code failed} and SQLite's
     * message. One caller at a time: the store has one connection.
     */
    private synchronized <T> T transaction(String failed, Work<T> work) throws IOException {
        try {
            T result = work.run(connection);
            connection.commit();
            return result;
        } catch (SQLException e) {
            rollback();
            throw new IOException(failed + e.getMessage(), e);
        }
    }

    private void rollback() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // The original failure is the one worth reporting.
        }
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IOException(e);
        }
    }
}
