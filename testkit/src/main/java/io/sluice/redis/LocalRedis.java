package io.sluice.redis;

import io.sluice.net.Ports;
import java.io.IOException;
import java.net.URI;
import redis.embedded.RedisServer;

/**
 * A real Redis server on a free loopback port, for tests, benchmarks and local runs: the binary
 * packaged on Maven Central by embedded-redis (Redis 6.2), so nothing needs installing. It can be
 * stopped and started again on the same port, to test an outage. embedded-redis is a {@code
 * provided} dependency: it is never part of the job jar.
 */
public final class LocalRedis implements AutoCloseable {

    private final int port;
    private final RedisServer server;

    public LocalRedis() throws IOException {
        this(null);
    }

    /**
     * @param dataDir with a directory, the server persists every write to an append-only file there
     *     (fsync always), so its data survives a stop and start, as a production Redis's would;
     *     without one it keeps nothing
     */
    public LocalRedis(java.nio.file.Path dataDir) throws IOException {
        this(dataDir, false);
    }

    /**
     * A server without persistence whose {@code CONFIG} command is disabled ({@code rename-command
     * CONFIG ""}), as managed Redis services disable it: a client cannot read its settings.
     */
    public static LocalRedis refusingConfig() throws IOException {
        return new LocalRedis(null, true);
    }

    private LocalRedis(java.nio.file.Path dataDir, boolean refuseConfig) throws IOException {
        port = Ports.unassigned();
        var builder =
                RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"");
        if (dataDir == null) {
            builder.setting("appendonly no");
        } else {
            java.nio.file.Files.createDirectories(dataDir);
            builder.setting("appendonly yes")
                    .setting("appendfsync always")
                    .setting("dir " + dataDir.toAbsolutePath());
        }
        if (refuseConfig) {
            builder.setting("rename-command CONFIG \"\"");
        }
        server = builder.build();
        server.start();
    }

    public URI uri() {
        return URI.create("redis://127.0.0.1:" + port);
    }

    public void stop() throws IOException {
        server.stop();
    }

    public void start() throws IOException {
        server.start();
    }

    @Override
    public void close() throws IOException {
        if (server.isActive()) {
            server.stop();
        }
    }
}
