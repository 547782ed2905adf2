package io.sluice.features.online;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import redis.embedded.RedisServer;

/**
 * A real Redis server for tests, on a free loopback port: the binary packaged on Maven Central by
 * embedded-redis (Redis 6.2), so no system install is needed and the tests always run. It can be
 * stopped and started again on the same port, to test an outage.
 */
final class RedisProcess implements AutoCloseable {

    private final int port;
    private final RedisServer server;

    RedisProcess() throws IOException {
        this(null);
    }

    /**
     * @param dataDir with a directory, the server persists every write to an append-only file there
     *     (fsync always), so its data survives a stop and start, as a production Redis's would;
     *     without one it keeps nothing
     */
    RedisProcess(java.nio.file.Path dataDir) throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
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
        server = builder.build();
        server.start();
    }

    URI uri() {
        return URI.create("redis://127.0.0.1:" + port);
    }

    void stop() throws IOException {
        server.stop();
    }

    void start() throws IOException {
        server.start();
    }

    @Override
    public void close() throws IOException {
        if (server.isActive()) {
            server.stop();
        }
    }
}
