package io.sluice.features.testing;

import io.sluice.features.online.OnlineStore;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;

/**
 * A real store behind a test's hook: every call goes to {@code store}, and a test overrides the one
 * it watches or holds. {@link #readAsync} is the interface's own (it calls {@link #read} here), so
 * an override of {@link #read} sees every read.
 */
public abstract class ForwardingOnlineStore implements OnlineStore {

    private final OnlineStore store;

    protected ForwardingOnlineStore(OnlineStore store) {
        this.store = store;
    }

    @Override
    public int write(List<TileWrite> writes) throws IOException {
        return store.write(writes);
    }

    @Override
    public List<Found> read(List<RangeRead> reads, long now) throws IOException {
        return store.read(reads, now);
    }

    @Override
    public boolean readsWithoutBlocking() {
        return store.readsWithoutBlocking();
    }

    @Override
    public void markWritten(String view, int parallelism, int subtask, long watermark)
            throws IOException {
        store.markWritten(view, parallelism, subtask, watermark);
    }

    @Override
    public OptionalLong writtenThrough(String view) throws IOException {
        return store.writtenThrough(view);
    }

    @Override
    public boolean hasTiles(String view) throws IOException {
        return store.hasTiles(view);
    }

    @Override
    public long clear(String view) throws IOException {
        return store.clear(view);
    }

    @Override
    public void close() throws IOException {
        store.close();
    }
}
