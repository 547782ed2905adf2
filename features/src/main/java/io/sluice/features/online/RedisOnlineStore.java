package io.sluice.features.online;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The production online store, on one Redis server or a Redis (or Valkey) Cluster, through Lettuce.
 *
 * <p><b>Layout.</b> One hash per (view, entity), {@code sluice:tiles:{view:entity}}: a read of any
 * number of windows touches one stored object per entity, and the hash tag keeps it whole on one
 * cluster slot. A tile is the field {@code f<start>} (fine) or {@code c<start>} (coarse) whose
 * value is {@code <expireAt>,<version>,<payload>}. Redis 6 has no expiry per hash field, so:
 *
 * <ul>
 *   <li>readers skip fields whose {@code expireAt} has passed (the contract: an expired tile is
 *       gone);
 *   <li>the hash itself expires with its latest tile ({@code PEXPIREAT}, tracked in field {@code
 *       ~x}), so an entity that goes quiet leaves nothing behind;
 *   <li>each write also sweeps a few fields of the hash ({@code HSCAN} from a cursor kept in field
 *       {@code ~c}) and deletes expired ones, so an active entity's hash stays as large as its live
 *       tiles; a write adds at most a few fields, fewer than it sweeps.
 * </ul>
 *
 * <p><b>Writes</b> are one Lua call per (view, entity) of a batch, pipelined, each tile a
 * compare-and-set on its version. <b>Reads</b> are one Lua call per (view, entity), pipelined: the
 * script expands the runs of tiles asked for, {@code HMGET}s them and returns only live ones, so a
 * request of 100 entities costs one round trip per Redis node and carries back only what exists.
 *
 * <p>{@code redis://} and {@code rediss://} name one server; {@code redis-cluster://} and {@code
 * rediss-cluster://host:port,host:port,…} name a cluster's seed nodes, from which Lettuce learns
 * the topology and routes each (view, entity) to its slot's node. Commands fail fast while Redis is
 * unreachable (no unbounded buffering); the features job retries a failed batch with back-off.
 */
public final class RedisOnlineStore implements OnlineStore {

    /** KEYS[1] the hash; ARGV[1] now; then per tile: field, version, expireAt, payload. */
    static final String WRITE =
            """
            redis.replicate_commands()
            local key = KEYS[1]
            local now = tonumber(ARGV[1])
            local applied = 0
            local latest = ARGV[4]
            for i = 2, #ARGV, 4 do
              local old = redis.call('HGET', key, ARGV[i])
              local newer = true
              if old then
                local a = string.find(old, ',', 1, true)
                local b = string.find(old, ',', a + 1, true)
                newer = tonumber(string.sub(old, a + 1, b - 1)) <= tonumber(ARGV[i + 1])
              end
              if newer then
                redis.call('HSET', key, ARGV[i], ARGV[i + 2] .. ',' .. ARGV[i + 1] .. ',' .. ARGV[i + 3])
                applied = applied + 1
              end
              if tonumber(ARGV[i + 2]) > tonumber(latest) then latest = ARGV[i + 2] end
            end
            local page = redis.call('HSCAN', key, redis.call('HGET', key, '~c') or '0', 'COUNT', 16)
            local items = page[2]
            for j = 1, #items, 2 do
              local f = items[j]
              if string.sub(f, 1, 1) ~= '~' then
                local v = items[j + 1]
                if tonumber(string.sub(v, 1, string.find(v, ',', 1, true) - 1)) <= now then
                  redis.call('HDEL', key, f)
                end
              end
            end
            redis.call('HSET', key, '~c', page[1])
            local expiry = redis.call('HGET', key, '~x')
            if not expiry or tonumber(latest) > tonumber(expiry) then
              redis.call('HSET', key, '~x', latest)
              redis.call('PEXPIREAT', key, latest)
            end
            return applied
            """;

    /** KEYS[1] the hash; ARGV[1] now; then per run: prefix (f or c), from, to, step. */
    static final String READ =
            """
            if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
            local now = tonumber(ARGV[1])
            local fields = {}
            for i = 2, #ARGV, 4 do
              local s = tonumber(ARGV[i + 1])
              local to = tonumber(ARGV[i + 2])
              local step = tonumber(ARGV[i + 3])
              while s < to do
                fields[#fields + 1] = ARGV[i] .. string.format('%d', s)
                s = s + step
              end
            end
            local out = {}
            for c = 1, #fields, 1000 do
              local chunk = {}
              for j = c, math.min(c + 999, #fields) do chunk[#chunk + 1] = fields[j] end
              local values = redis.call('HMGET', KEYS[1], unpack(chunk))
              for j = 1, #values do
                local v = values[j]
                if v then
                  local a = string.find(v, ',', 1, true)
                  if tonumber(string.sub(v, 1, a - 1)) > now then
                    local b = string.find(v, ',', a + 1, true)
                    out[#out + 1] = chunk[j]
                    out[#out + 1] = string.sub(v, b + 1)
                  end
                end
              end
            end
            return out
            """;

    /** Fields that are not tiles: the hash's expiry and the sweep's cursor. */
    private static final int META_FIELDS = 2;

    /** The latest expiry Redis takes (year 9999); a later one means "never" and is clamped. */
    private static final long MAX_EXPIRY = 253_402_300_799_999L;

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final URI uri;
    private final AutoCloseable client;
    private final Connector connector;
    private final String writeSha;
    private final String readSha;

    /** The connection, once made: Redis may not be up when the store is opened. */
    private volatile Connected connected;

    /** Held while commands are queued with auto-flush off, so pipelines never interleave. */
    private final Object pipeline = new Object();

    private record Connected(
            StatefulConnection<byte[], byte[]> connection,
            RedisClusterAsyncCommands<byte[], byte[]> commands) {}

    private interface Connector {
        Connected connect();
    }

    /**
     * A store on {@code redis[s]://host:port[/db]} or {@code redis[s]-cluster://seeds}. It connects
     * on first use and again after a failed attempt, so a server or job started before Redis is up
     * answers "not answering" until it is, instead of failing to start.
     */
    public RedisOnlineStore(URI uri) {
        this.uri = uri;
        TimeoutOptions timeouts = TimeoutOptions.enabled(TIMEOUT);
        if (isCluster(uri)) {
            RedisClusterClient cluster = RedisClusterClient.create(seeds(uri));
            cluster.setOptions(
                    ClusterClientOptions.builder()
                            .autoReconnect(true)
                            .disconnectedBehavior(
                                    ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                            .timeoutOptions(timeouts)
                            .build());
            client = cluster::shutdown;
            connector =
                    () -> {
                        StatefulRedisClusterConnection<byte[], byte[]> c =
                                cluster.connect(ByteArrayCodec.INSTANCE);
                        return new Connected(c, c.async());
                    };
        } else {
            RedisClient single = RedisClient.create(RedisURI.create(uri));
            single.setOptions(
                    ClientOptions.builder()
                            .autoReconnect(true)
                            .disconnectedBehavior(
                                    ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                            .timeoutOptions(timeouts)
                            .build());
            client = single::shutdown;
            connector =
                    () -> {
                        var c = single.connect(ByteArrayCodec.INSTANCE);
                        return new Connected(c, c.async());
                    };
        }
        writeSha = sha1(WRITE);
        readSha = sha1(READ);
        try {
            connected();
        } catch (IOException notYet) {
            // Redis is not up yet: the first command tries again and fails with what happened.
        }
    }

    private Connected connected() throws IOException {
        Connected c = connected;
        if (c != null) {
            return c;
        }
        synchronized (pipeline) {
            if (connected == null) {
                try {
                    Connected made = connector.connect();
                    made.connection().setTimeout(TIMEOUT);
                    connected = made;
                } catch (RuntimeException e) {
                    throw new IOException(
                            "cannot connect to Redis at " + redacted(uri) + ": " + e.getMessage(),
                            e);
                }
            }
            return connected;
        }
    }

    /** The name Redis knows a script by: the hex SHA-1 of its text. */
    static String sha1(String script) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(
                            java.security.MessageDigest.getInstance("SHA-1")
                                    .digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    /** {@code uri} without its password. */
    private static String redacted(URI uri) {
        return uri.getRawUserInfo() == null
                ? uri.toString()
                : uri.toString().replace(uri.getRawUserInfo() + "@", "***@");
    }

    /** Whether {@code uri} names a cluster's seed nodes. */
    public static boolean isCluster(URI uri) {
        String scheme = uri.getScheme();
        return "redis-cluster".equals(scheme) || "rediss-cluster".equals(scheme);
    }

    /** The seed nodes of {@code redis[s]-cluster://[user:password@]host:port,host:port,…}. */
    static List<RedisURI> seeds(URI uri) {
        String scheme = uri.getScheme().startsWith("rediss") ? "rediss://" : "redis://";
        String authority = uri.getRawAuthority();
        String credentials = "";
        int at = authority == null ? -1 : authority.lastIndexOf('@');
        if (at >= 0) {
            credentials = authority.substring(0, at + 1);
            authority = authority.substring(at + 1);
        }
        List<RedisURI> seeds = new ArrayList<>();
        if (authority != null) {
            for (String node : authority.split(",")) {
                if (!node.isBlank()) {
                    seeds.add(RedisURI.create(scheme + credentials + node.strip()));
                }
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException(
                    "a Redis Cluster URI names its seed nodes, like"
                            + " redis-cluster://10.0.0.1:6379,10.0.0.2:6379");
        }
        return seeds;
    }

    /** The hash of one (view, entity). */
    static byte[] hashKey(String view, String entity) {
        return ("sluice:tiles:{" + view + ":" + entity + "}").getBytes(StandardCharsets.UTF_8);
    }

    static String field(Level level, long start) {
        return (level == Level.FINE ? "f" : "c") + start;
    }

    @Override
    public int write(List<TileWrite> writes) throws IOException {
        if (writes.isEmpty()) {
            return 0;
        }
        Map<List<String>, List<TileWrite>> byHash = new LinkedHashMap<>();
        for (TileWrite w : writes) {
            byHash.computeIfAbsent(
                            List.of(w.key().view(), w.key().entity()), k -> new ArrayList<>())
                    .add(w);
        }
        List<byte[]> keys = new ArrayList<>(byHash.size());
        List<byte[][]> args = new ArrayList<>(byHash.size());
        byte[] now = ascii(System.currentTimeMillis());
        for (Map.Entry<List<String>, List<TileWrite>> e : byHash.entrySet()) {
            keys.add(hashKey(e.getKey().get(0), e.getKey().get(1)));
            List<TileWrite> tiles = e.getValue();
            byte[][] a = new byte[1 + 4 * tiles.size()][];
            a[0] = now;
            for (int i = 0; i < tiles.size(); i++) {
                TileWrite w = tiles.get(i);
                a[1 + 4 * i] =
                        field(w.key().level(), w.key().start()).getBytes(StandardCharsets.US_ASCII);
                a[2 + 4 * i] = ascii(w.version());
                a[3 + 4 * i] = ascii(Math.min(w.expireAt(), MAX_EXPIRY));
                a[4 + 4 * i] = w.payload();
            }
            args.add(a);
        }
        int applied = 0;
        for (Object n : run(WRITE, writeSha, ScriptOutputType.INTEGER, keys, args)) {
            applied += (int) (long) (Long) n;
        }
        return applied;
    }

    @Override
    public List<Found> read(List<RangeRead> reads, long now) throws IOException {
        List<byte[]> keys = new ArrayList<>(reads.size());
        List<byte[][]> args = new ArrayList<>(reads.size());
        for (RangeRead r : reads) {
            keys.add(hashKey(r.view(), r.entity()));
            byte[][] a = new byte[1 + 4 * r.ranges().size()][];
            a[0] = ascii(now);
            for (int i = 0; i < r.ranges().size(); i++) {
                TileRange range = r.ranges().get(i);
                a[1 + 4 * i] = range.level() == Level.FINE ? F : C;
                a[2 + 4 * i] = ascii(range.from());
                a[3 + 4 * i] = ascii(range.to());
                a[4 + 4 * i] = ascii(range.step());
            }
            args.add(a);
        }
        List<Object> answers = run(READ, readSha, ScriptOutputType.MULTI, keys, args);
        List<Found> found = new ArrayList<>(reads.size());
        for (Object answer : answers) {
            Found f = new Found();
            List<?> flat = (List<?>) answer;
            for (int i = 0; i + 1 < flat.size(); i += 2) {
                String name = new String((byte[]) flat.get(i), StandardCharsets.US_ASCII);
                long start = Long.parseLong(name, 1, name.length(), 10);
                (name.charAt(0) == 'f' ? f.fine() : f.coarse())
                        .put(start, (byte[]) flat.get(i + 1));
            }
            found.add(f);
        }
        return found;
    }

    private static final byte[] F = {'f'};
    private static final byte[] C = {'c'};

    /**
     * Runs {@code script} once per key, all pipelined, and waits for every answer. A server that
     * does not know the script (a new or restarted node) is sent it in full, once per call.
     */
    private List<Object> run(
            String script,
            String sha,
            ScriptOutputType type,
            List<byte[]> keys,
            List<byte[][]> args)
            throws IOException {
        try {
            return await(pipelined(sha, null, type, keys, args));
        } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("NOSCRIPT")) {
                throw e;
            }
            return await(pipelined(sha, script, type, keys, args));
        }
    }

    private List<RedisFuture<Object>> pipelined(
            String sha,
            String script,
            ScriptOutputType type,
            List<byte[]> keys,
            List<byte[][]> args)
            throws IOException {
        List<RedisFuture<Object>> futures = new ArrayList<>(keys.size());
        Connected c = connected();
        StatefulConnection<byte[], byte[]> connection = c.connection();
        RedisClusterAsyncCommands<byte[], byte[]> commands = c.commands();
        synchronized (pipeline) {
            connection.setAutoFlushCommands(false);
            try {
                for (int i = 0; i < keys.size(); i++) {
                    byte[][] k = {keys.get(i)};
                    futures.add(
                            script == null
                                    ? commands.evalsha(sha, type, k, args.get(i))
                                    : commands.eval(script, type, k, args.get(i)));
                }
                connection.flushCommands();
            } finally {
                connection.setAutoFlushCommands(true);
            }
        }
        return futures;
    }

    private static List<Object> await(List<RedisFuture<Object>> futures) throws IOException {
        List<Object> answers = new ArrayList<>(futures.size());
        for (RedisFuture<Object> f : futures) {
            answers.add(await(f));
        }
        return answers;
    }

    @Override
    public boolean hasTiles(String view) throws IOException {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connected().commands();
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(viewPattern(view)).limit(1000);
        do {
            KeyScanCursor<byte[]> page = await(commands.scan(cursor, args));
            if (!page.getKeys().isEmpty()) {
                return true;
            }
            cursor = page;
        } while (!cursor.isFinished());
        return false;
    }

    @Override
    public long clear(String view) throws IOException {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connected().commands();
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(viewPattern(view)).limit(1000);
        long deleted = 0;
        do {
            KeyScanCursor<byte[]> page = await(commands.scan(cursor, args));
            for (byte[] key : page.getKeys()) {
                // Count tiles, not hashes: every field but the two bookkeeping ones.
                deleted += Math.max(0, await(commands.hlen(key)) - META_FIELDS);
                await(commands.unlink(key));
            }
            cursor = page;
        } while (!cursor.isFinished());
        return deleted;
    }

    /** A SCAN pattern for every hash of {@code view}, with glob characters escaped. */
    static String viewPattern(String view) {
        return "sluice:tiles:{" + view.replaceAll("([\\\\*?\\[\\]])", "\\\\$1") + ":*";
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
    public void close() throws IOException {
        Connected c = connected;
        if (c != null) {
            c.connection().close();
        }
        try {
            client.close();
        } catch (Exception e) {
            throw new IOException("closing the Redis client failed: " + e, e);
        }
    }
}
