package io.sluice.features.online;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Where the features job keeps tiles for serving: Redis in production, SQLite embedded. A store
 * keeps opaque tile payloads with a version and an expiry; what a tile means, and how a window is
 * read from tiles, is {@link FeatureReader}'s business, shared by every store.
 *
 * <p>Writes are compare-and-set on the version (the features job's modification count of the tile,
 * which only grows, also when a retraction removes an event; a bulk writer such as {@link
 * TileWrites#of} may use the event count of tiles that only grow): a write older than what is
 * stored is ignored, so a replay after a failure never moves a value back, and rewriting the same
 * version is harmless.
 */
public interface OnlineStore extends AutoCloseable {

    /** Fine tiles hold events; coarse tiles hold partials over 60 fine tiles. */
    enum Level {
        FINE,
        COARSE
    }

    /** Which tile. */
    record TileKey(String view, String entity, Level level, long start) {}

    /**
     * One tile to store.
     *
     * @param version the tile's version: a count that grows with every change of the tile
     * @param expireAt epoch millis after which the tile is gone
     */
    record TileWrite(TileKey key, long version, byte[] payload, long expireAt) {}

    /**
     * Stores a batch of tiles, each only if its version is at least the stored one.
     *
     * @return how many were applied
     */
    int write(List<TileWrite> writes) throws IOException;

    /** The payloads of those {@code keys} that exist and have not expired at {@code now}. */
    Map<TileKey, byte[]> read(List<TileKey> keys, long now) throws IOException;

    /** Whether any tile of {@code view} is stored, expired or not. */
    boolean hasTiles(String view) throws IOException;

    /**
     * Deletes every tile of {@code view}: the first step of a rebuild, when the job that wrote them
     * lost its state and would count differently.
     *
     * @return how many tiles were deleted
     */
    long clear(String view) throws IOException;

    @Override
    void close() throws IOException;
}
