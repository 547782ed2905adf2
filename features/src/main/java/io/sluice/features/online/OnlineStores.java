package io.sluice.features.online;

import io.sluice.config.OnlineConfig;
import java.io.IOException;

/** Opens the online store a config names. */
public final class OnlineStores {

    private OnlineStores() {}

    public static OnlineStore open(OnlineConfig config) throws IOException {
        return switch (config.store()) {
            case SQLITE -> new SqliteOnlineStore(config.sqlitePath());
            case REDIS -> new RedisOnlineStore(config.uri());
        };
    }
}
