package io.sluice.features.online;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

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

    /**
     * Fine tiles hold events; coarse tiles hold partials over 60 fine tiles, mid tiles over the
     * fine tiles of {@link io.sluice.features.agg.ViewDef#midMillis()} (6 of them). (MID comes last
     * so that the levels stored before it keep their numbers.)
     */
    enum Level {
        FINE,
        COARSE,
        MID
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

    /**
     * A run of tiles of one level: those starting in {@code [from, to)}, multiples of {@code step}.
     */
    record TileRange(Level level, long from, long to, long step) {}

    /** The tiles of one (view, entity) a read needs, as runs. */
    record RangeRead(String view, String entity, List<TileRange> ranges) {}

    /** What one {@link RangeRead} found: payloads by tile start, per level. */
    record Found(
            NavigableMap<Long, byte[]> fine,
            NavigableMap<Long, byte[]> coarse,
            NavigableMap<Long, byte[]> mid) {

        public Found() {
            this(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        }

        /** The tiles of {@code level}. */
        public NavigableMap<Long, byte[]> of(Level level) {
            return switch (level) {
                case FINE -> fine;
                case COARSE -> coarse;
                case MID -> mid;
            };
        }
    }

    /**
     * The tiles in each read's ranges that exist and have not expired at {@code now}, one {@link
     * Found} per read, in order. One call costs a bounded number of round trips to the store,
     * however many reads it carries, and touches one stored object per (view, entity) in Redis: a
     * reader of many entities and long windows asks for all of them at once.
     */
    List<Found> read(List<RangeRead> reads, long now) throws IOException;

    /**
     * Takes the answer of one read of a {@link #readAsync}: its index among the reads, and what it
     * found.
     */
    interface Answers {
        void found(int read, Found found);
    }

    /**
     * {@link #read} without waiting, for a caller that must not wait (a server's event loop): each
     * read's answer is handed to {@code answers} on {@code executor} as it arrives, in any order,
     * so that a caller can work on the first entities while the store still sends the last; the
     * stage completes, on {@code executor}, after the last answer was taken. A store whose client
     * is asynchronous returns at once and says so in {@link #readsWithoutBlocking()}. A failure
     * completes the stage with an {@link IOException}. By default the read runs in the caller's
     * thread, which takes every answer, in order, before this returns a completed stage.
     */
    default CompletionStage<Void> readAsync(
            List<RangeRead> reads, long now, Executor executor, Answers answers) {
        try {
            List<Found> found = read(reads, now);
            for (int i = 0; i < found.size(); i++) {
                answers.found(i, found.get(i));
            }
            return CompletableFuture.completedFuture(null);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether {@link #readAsync} returns now, without waiting on the store (or on a connection to
     * it), so that an event loop may call it.
     */
    default boolean readsWithoutBlocking() {
        return false;
    }

    /** The payloads of those {@code keys} that exist and have not expired at {@code now}. */
    default Map<TileKey, byte[]> readTiles(List<TileKey> keys, long now) throws IOException {
        List<RangeRead> reads = new ArrayList<>(keys.size());
        for (TileKey k : keys) {
            reads.add(
                    new RangeRead(
                            k.view(),
                            k.entity(),
                            List.of(new TileRange(k.level(), k.start(), k.start() + 1, 1))));
        }
        List<Found> found = read(reads, now);
        Map<TileKey, byte[]> payloads = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            byte[] p = found.get(i).of(keys.get(i).level()).get(keys.get(i).start());
            if (p != null) {
                payloads.put(keys.get(i), p);
            }
        }
        return payloads;
    }

    /**
     * Records that subtask {@code subtask} (of {@code parallelism}) of the features job's online
     * sink has written every tile of the events of {@code view} it received before {@code
     * watermark}: called after those tiles' write, so a reader that sees the mark finds the tiles.
     * Replaces the subtask's earlier mark.
     */
    void markWritten(String view, int parallelism, int subtask, long watermark) throws IOException;

    /**
     * The watermark through which {@code view}'s tiles are written ({@link WrittenThrough}): every
     * event with a time at or before it that the features job applies on time is in the store. A
     * read at a later time could miss events the job has not applied yet. Empty when the job has
     * not marked it (it has not run with marks, or not got a watermark yet).
     */
    OptionalLong writtenThrough(String view) throws IOException;

    /** Whether any tile of {@code view} is stored, expired or not. */
    boolean hasTiles(String view) throws IOException;

    /**
     * Deletes every tile of {@code view}, and its written-through marks: the first step of a
     * rebuild, when the job that wrote them lost its state and would count differently.
     *
     * @return how many tiles were deleted
     */
    long clear(String view) throws IOException;

    /**
     * What could undo writes this store has acknowledged, one sentence each, for a warning when the
     * features job starts: the job counts a tile as written once {@link #write} returns, and writes
     * it again only when it changes. Empty when only the loss of the disk could.
     */
    default List<String> durabilityRisks() throws IOException {
        return List.of();
    }

    @Override
    void close() throws IOException;
}
