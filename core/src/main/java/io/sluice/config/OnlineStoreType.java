package io.sluice.config;

/** Backends for the online feature store: SQLite for one machine, Redis when serving is shared. */
public enum OnlineStoreType {
    SQLITE,
    REDIS
}
