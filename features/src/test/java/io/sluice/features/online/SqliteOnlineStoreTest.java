package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on a real SQLite file. */
class SqliteOnlineStoreTest extends OnlineStoreContract {

    @TempDir Path dir;

    @Override
    OnlineStore open() throws Exception {
        return new SqliteOnlineStore(dir.resolve("online.db"));
    }

    /**
     * The features job counts a batch as written once {@code write} returns, before a checkpoint
     * completes: in WAL mode only {@code synchronous = FULL} (2) puts each commit on disk before it
     * returns; {@code NORMAL} (1) leaves the newest commits to a power loss.
     */
    @Test
    void commitsReachTheDiskBeforeTheyReturn() throws Exception {
        try (SqliteOnlineStore store = new SqliteOnlineStore(dir.resolve("synced.db"))) {
            assertThat(store.pragma("journal_mode")).isEqualTo("wal");
            assertThat(store.pragma("synchronous")).isEqualTo("2");
        }
    }
}
