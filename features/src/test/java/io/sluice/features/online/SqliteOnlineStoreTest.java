package io.sluice.features.online;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The contract on a real SQLite file. */
class SqliteOnlineStoreTest extends OnlineStoreContract {

    @TempDir Path dir;

    @Override
    OnlineStore open() throws Exception {
        return new SqliteOnlineStore(dir.resolve("online.db"));
    }
}
