package io.sluice.features.online;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The production online store: per tile, a payload key and a version key ({@code …:v}), both with
 * the tile's expiry, written by a Lua compare-and-set (pipelined) and read with one {@code MGET}
 * per request, through Lettuce. An entity's keys share a hash tag, so they live on one Redis
 * Cluster slot.
 *
 * <p>Commands fail fast while Redis is unreachable (no unbounded buffering); the features job
 * retries a failed batch with back-off.
 */
public final class RedisOnlineStore implements OnlineStore {

    /** Writes only if no stored version is newer; then sets the expiry. */
    static final String COMPARE_AND_SET =
            "local v = redis.call('GET', KEYS[2])\n"
                    + "if v and tonumber(v) > tonumber(ARGV[1]) then return 0 end\n"
                    + "redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3])\n"
                    + "redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[3])\n"
                    + "return 1";

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private volatile String scriptSha;

    /** Connects to {@code redis://host:port[/db]}. */
    public RedisOnlineStore(URI uri) {
        client = RedisClient.create(RedisURI.create(uri));
        client.setOptions(
                ClientOptions.builder()
                        .autoReconnect(true)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                        .build());
        connection = client.connect(ByteArrayCodec.INSTANCE);
        connection.setTimeout(TIMEOUT);
    }

    static byte[] versionKey(TileKey key) {
        byte[] k = redisKey(key);
        byte[] v = java.util.Arrays.copyOf(k, k.length + 2);
        v[k.length] = ':';
        v[k.length + 1] = 'v';
        return v;
    }

    static byte[] redisKey(TileKey key) {
        String k =
                "sluice:{"
                        + key.view()
                        + ":"
                        + key.entity()
                        + "}:"
                        + (key.level() == Level.FINE ? "f:" : "c:")
                        + key.start();
        return k.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized int write(List<TileWrite> writes) throws IOException {
        if (writes.isEmpty()) {
            return 0;
        }
        try {
            return compareAndSetAll(writes);
        } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("NOSCRIPT")) {
                throw e;
            }
            // A restarted Redis has forgotten the script: load it again, once.
            scriptSha = null;
            return compareAndSetAll(writes);
        }
    }

    private int compareAndSetAll(List<TileWrite> writes) throws IOException {
        RedisAsyncCommands<byte[], byte[]> async = connection.async();
        String sha = scriptSha();
        List<RedisFuture<Long>> futures = new ArrayList<>(writes.size());
        connection.setAutoFlushCommands(false);
        try {
            for (TileWrite w : writes) {
                futures.add(
                        async.evalsha(
                                sha,
                                ScriptOutputType.INTEGER,
                                new byte[][] {redisKey(w.key()), versionKey(w.key())},
                                ascii(w.version()),
                                w.payload(),
                                ascii(w.expireAt())));
            }
            connection.flushCommands();
        } finally {
            connection.setAutoFlushCommands(true);
        }
        int applied = 0;
        for (RedisFuture<Long> f : futures) {
            applied += (int) (long) await(f);
        }
        return applied;
    }

    @Override
    public synchronized Map<TileKey, byte[]> read(List<TileKey> keys, long now) throws IOException {
        Map<TileKey, byte[]> found = new HashMap<>();
        if (keys.isEmpty()) {
            return found;
        }
        byte[][] redisKeys = new byte[keys.size()][];
        for (int i = 0; i < redisKeys.length; i++) {
            redisKeys[i] = redisKey(keys.get(i));
        }
        List<KeyValue<byte[], byte[]>> values = await(connection.async().mget(redisKeys));
        for (int i = 0; i < values.size(); i++) {
            KeyValue<byte[], byte[]> kv = values.get(i);
            if (kv.hasValue()) {
                found.put(keys.get(i), kv.getValue());
            }
        }
        return found;
    }

    @Override
    public synchronized boolean hasTiles(String view) throws IOException {
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(viewPattern(view)).limit(1000);
        do {
            KeyScanCursor<byte[]> page = await(connection.async().scan(cursor, args));
            if (!page.getKeys().isEmpty()) {
                return true;
            }
            cursor = page;
        } while (!cursor.isFinished());
        return false;
    }

    @Override
    public synchronized long clear(String view) throws IOException {
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(viewPattern(view)).limit(1000);
        long deleted = 0;
        do {
            KeyScanCursor<byte[]> page = await(connection.async().scan(cursor, args));
            if (!page.getKeys().isEmpty()) {
                deleted += await(connection.async().unlink(page.getKeys().toArray(byte[][]::new)));
            }
            cursor = page;
        } while (!cursor.isFinished());
        // Payload and version keys are deleted together; count tiles, not keys.
        return deleted / 2;
    }

    /** A SCAN pattern for every key of {@code view}, with glob characters escaped. */
    static String viewPattern(String view) {
        return "sluice:{" + view.replaceAll("([\\\\*?\\[\\]])", "\\\\$1") + ":*";
    }

    private String scriptSha() throws IOException {
        String sha = scriptSha;
        if (sha == null) {
            sha = await(connection.async().scriptLoad(COMPARE_AND_SET));
            scriptSha = sha;
        }
        return sha;
    }

    private static <T> T await(RedisFuture<T> future) throws IOException {
        try {
            if (!LettuceFutures.awaitAll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS, future)) {
                throw new IOException("Redis did not answer within " + TIMEOUT);
            }
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for Redis", e);
        } catch (ExecutionException e) {
            throw new IOException("Redis command failed: " + e.getCause(), e.getCause());
        } catch (RuntimeException e) {
            throw new IOException("Redis command failed: " + e, e);
        }
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
