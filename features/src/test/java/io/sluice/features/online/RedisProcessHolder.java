package io.sluice.features.online;

import java.io.IOException;
import java.net.URI;

/** Public access to {@link RedisProcess} for tests in other packages. */
public final class RedisProcessHolder implements AutoCloseable {

    private final RedisProcess process;

    private RedisProcessHolder(RedisProcess process) {
        this.process = process;
    }

    public static RedisProcessHolder start() throws IOException {
        return new RedisProcessHolder(new RedisProcess());
    }

    /** A server that persists to {@code dataDir}, so its data survives a restart. */
    public static RedisProcessHolder persistent(java.nio.file.Path dataDir) throws IOException {
        return new RedisProcessHolder(new RedisProcess(dataDir));
    }

    public URI uri() {
        return process.uri();
    }

    public void stop() throws IOException {
        process.stop();
    }

    public void restart() throws IOException {
        process.start();
    }

    @Override
    public void close() throws IOException {
        process.close();
    }
}
