package io.sluice.features.online;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The Lettuce connection under {@link RedisOnlineStore}: to one server or a cluster, made on first
 * use and again after a failed attempt, failing fast while Redis is away, with pipelined sends.
 */
final class RedisConnection implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final URI uri;
    private final Duration timeout;
    private final AutoCloseable client;

    /** Lettuce's event loops, given to the client so that its channels acknowledge promptly. */
    private final ClientResources resources;

    private final Connector connector;

    /** The connection, once made: Redis may not be up when the store is opened. */
    private volatile Connected connected;

    /** Held while a connection is being made. */
    private final ReentrantLock connecting = new ReentrantLock();

    /** Held while commands are queued with auto-flush off, so pipelines never interleave. */
    private final Object pipeline = new Object();

    private record Connected(
            StatefulConnection<byte[], byte[]> connection,
            RedisClusterAsyncCommands<byte[], byte[]> commands) {}

    private interface Connector {
        Connected connect();
    }

    RedisConnection(URI uri) {
        this(uri, TIMEOUT);
    }

    /** With {@code timeout} for the handshake and every command instead of {@link #TIMEOUT}. */
    RedisConnection(URI uri, Duration timeout) {
        this.uri = uri;
        this.timeout = timeout;
        this.resources = DefaultClientResources.builder().nettyCustomizer(new QuickAck()).build();
        if (RedisUris.isCluster(uri)) {
            List<RedisURI> seeds = RedisUris.seeds(uri);
            seeds.forEach(seed -> seed.setTimeout(timeout));
            RedisClusterClient cluster = RedisClusterClient.create(resources, seeds);
            cluster.setOptions(failFast(ClusterClientOptions.builder(), timeout).build());
            client = cluster::shutdown;
            connector =
                    () -> {
                        StatefulRedisClusterConnection<byte[], byte[]> c =
                                cluster.connect(ByteArrayCodec.INSTANCE);
                        return new Connected(c, c.async());
                    };
        } else {
            // The handshake bounded too: Lettuce's default of 60 s held an attempt to reach a
            // Redis that accepts and never answers (a black hole, not a refusal) for a minute.
            RedisURI one = RedisURI.create(uri);
            one.setTimeout(timeout);
            RedisClient single = RedisClient.create(resources, one);
            single.setOptions(failFast(ClientOptions.builder(), timeout).build());
            client = single::shutdown;
            connector =
                    () -> {
                        var c = single.connect(ByteArrayCodec.INSTANCE);
                        return new Connected(c, c.async());
                    };
        }
        try {
            connected();
        } catch (IOException notYet) {
            // Redis is not up yet: the first command tries again and fails with what happened.
        }
    }

    /** The commands, connecting first if need be. */
    RedisClusterAsyncCommands<byte[], byte[]> commands() throws IOException {
        return connected().commands();
    }

    /**
     * Options of either client: reconnect by itself, but reject commands while disconnected and
     * time them out, so nothing is buffered without bound while Redis is away.
     */
    private static <B extends ClientOptions.Builder> B failFast(B builder, Duration timeout) {
        builder.autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout));
        return builder;
    }

    private Connected connected() throws IOException {
        Connected c = connected;
        if (c != null) {
            return c;
        }
        // One attempt at a time; the others fail at once rather than queue behind it, so that a
        // server answers them 503 now, not one timeout after another.
        if (!connecting.tryLock()) {
            throw new IOException(
                    "not connected to Redis at "
                            + RedisUris.redacted(uri)
                            + ": another attempt is under way");
        }
        try {
            if (connected == null) {
                try {
                    Connected made = connector.connect();
                    made.connection().setTimeout(timeout);
                    connected = made;
                } catch (RuntimeException e) {
                    throw new IOException(
                            "cannot connect to Redis at "
                                    + RedisUris.redacted(uri)
                                    + ": "
                                    + e.getMessage(),
                            e);
                }
            }
            return connected;
        } finally {
            connecting.unlock();
        }
    }

    /**
     * Sends {@code n} commands without waiting between them (to one server in one flush) and
     * returns their futures; {@code command} may return null for a command it skips.
     */
    <T> List<RedisFuture<T>> pipelined(int n, Command<T> command) throws IOException {
        Connected c = connected();
        List<RedisFuture<T>> futures = new ArrayList<>(n);
        if (c.connection() instanceof StatefulRedisClusterConnection) {
            // A cluster connection's commands go out as they are issued, still without waiting
            // for each other's replies. Auto-flush stays on: a command redirected (MOVED, ASK)
            // while it is off is queued on a node connection that nothing flushes, and waits
            // until it times out.
            for (int i = 0; i < n; i++) {
                futures.add(command.send(c.commands(), i));
            }
            return futures;
        }
        synchronized (pipeline) {
            c.connection().setAutoFlushCommands(false);
            try {
                for (int i = 0; i < n; i++) {
                    futures.add(command.send(c.commands(), i));
                }
                c.connection().flushCommands();
            } finally {
                c.connection().setAutoFlushCommands(true);
            }
        }
        return futures;
    }

    /**
     * {@code CONFIG GET pattern} on the server, or on each upstream node of a cluster: each node's
     * {@code host:port} with its answer. One pattern: Redis before 7.0 takes no more.
     */
    Map<String, Map<String, String>> config(String pattern) throws IOException {
        Connected c = connected();
        Map<String, RedisFuture<Map<String, String>>> futures = new LinkedHashMap<>();
        try {
            if (c.connection() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
                for (RedisClusterNode node : cluster.getPartitions()) {
                    if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                        futures.put(
                                node.getUri().getHost() + ":" + node.getUri().getPort(),
                                cluster.getConnection(node.getNodeId()).async().configGet(pattern));
                    }
                }
            } else {
                futures.put(uri.getHost() + ":" + uri.getPort(), c.commands().configGet(pattern));
            }
        } catch (RuntimeException e) {
            throw failed(e);
        }
        Map<String, Map<String, String>> answers = new LinkedHashMap<>();
        for (Map.Entry<String, RedisFuture<Map<String, String>>> f : futures.entrySet()) {
            answers.put(f.getKey(), await(f.getValue()));
        }
        return answers;
    }

    interface Command<T> {
        RedisFuture<T> send(RedisClusterAsyncCommands<byte[], byte[]> commands, int i);
    }

    /** Every future's answer, in order; null for a skipped (null) command. */
    static <T> List<T> await(List<RedisFuture<T>> futures) throws IOException {
        List<T> answers = new ArrayList<>(futures.size());
        for (RedisFuture<T> f : futures) {
            answers.add(f == null ? null : await(f));
        }
        return answers;
    }

    /** Whether a connection has been made (Lettuce then reconnects by itself). */
    boolean isConnected() {
        return connected != null;
    }

    /** Whether a connection attempt is under way. */
    boolean isConnecting() {
        return connecting.isLocked();
    }

    /** Lettuce's event loops, timer and computation threads, for tests of how they stop. */
    ClientResources resources() {
        return resources;
    }

    /**
     * The {@link IOException} a failed command is reported with, by {@link #await(RedisFuture)} and
     * by a stage waiting on the command. Lettuce times each command out by itself ({@link
     * TimeoutOptions}), so such a stage always completes.
     */
    static IOException failed(Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
        return new IOException("Redis command failed: " + cause, cause);
    }

    static <T> T await(RedisFuture<T> future) throws IOException {
        try {
            if (!LettuceFutures.awaitAll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS, future)) {
                throw new IOException("Redis did not answer within " + TIMEOUT);
            }
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for Redis", e);
        } catch (ExecutionException e) {
            throw failed(e.getCause());
        } catch (RuntimeException e) {
            throw failed(e);
        }
    }

    /**
     * Stops Lettuce's timer and lets its computation threads run what they hold, before the client
     * releases its event loops. Every connection attempt arms a handshake timeout, which fires even
     * after a refused connection: its guard, run on a computation thread, closes the channel and
     * notifies the channel's event loop. Run after the client has shut that loop down, Netty logged
     * the rejected notification with a stack trace as the process stopped. The connection is closed
     * first: commands and reconnects arm timeouts on the same timer, and a stopped one refuses
     * them.
     */
    private void settleHandshakeTimeouts() {
        resources.timer().stop();
        List<Future<?>> settled = new ArrayList<>();
        for (EventExecutor executor : resources.eventExecutorGroup()) {
            try {
                settled.add(executor.submit(() -> {}));
            } catch (RejectedExecutionException closedBefore) {
                // shut down by an earlier close: nothing left to settle on it
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Future<?> f : settled) {
            f.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Closes the connection, the client and its event loops, after any connection attempt under way
     * has ended (within the handshake's timeout), and holding off new ones: an attempt whose event
     * loop shut down under it failed with a stack trace logged by Netty, in a server that stopped
     * while a readiness probe was connecting.
     */
    @Override
    public void close() throws IOException {
        boolean quiet;
        try {
            quiet = connecting.tryLock(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            quiet = false;
        }
        try {
            Connected c = connected;
            if (c != null) {
                c.connection().close();
            }
            settleHandshakeTimeouts();
            client.close();
        } catch (Exception e) {
            throw new IOException("closing the Redis client failed: " + e, e);
        } finally {
            // Resources given to a client outlive it: shut down after it, like its own would be,
            // with a short quiet period for the notifications of a channel closed just before.
            resources.shutdown(50, 2_000, TimeUnit.MILLISECONDS).awaitUninterruptibly();
            if (quiet) {
                connecting.unlock();
            }
        }
    }
}
