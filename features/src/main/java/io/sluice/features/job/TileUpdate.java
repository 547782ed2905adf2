package io.sluice.features.job;

import io.sluice.features.online.OnlineStore;

/**
 * A tile write on its way to the online store, with the newest event time it carries (for the
 * freshness histogram). A plain POJO, so Flink serialises it without Kryo.
 */
public class TileUpdate {
    public String view;
    public String entity;

    /** {@link OnlineStore.Level#ordinal()}. */
    public int level;

    public long start;
    public long version;
    public byte[] payload;
    public long expireAt;
    public long newestEventTime;

    public TileUpdate() {}

    public TileUpdate(OnlineStore.TileWrite write, long newestEventTime) {
        this.view = write.key().view();
        this.entity = write.key().entity();
        this.level = write.key().level().ordinal();
        this.start = write.key().start();
        this.version = write.version();
        this.payload = write.payload();
        this.expireAt = write.expireAt();
        this.newestEventTime = newestEventTime;
    }

    public OnlineStore.TileKey key() {
        return new OnlineStore.TileKey(view, entity, OnlineStore.Level.values()[level], start);
    }

    public OnlineStore.TileWrite write() {
        return new OnlineStore.TileWrite(key(), version, payload, expireAt);
    }
}
