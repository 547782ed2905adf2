package io.sluice.features.online;

import io.sluice.features.online.OnlineStore.TileWrite;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis store's write script and the arguments it takes, kept together: a compare-and-set of
 * each tile of one (view, entity) hash on its version, the hash's expiry, and a sweep of its
 * expired fields at most every {@link #SWEEP_EVERY_MILLIS} (see {@link RedisOnlineStore} for the
 * layout).
 */
final class TileWriteScript {

    /**
     * KEYS[1] the hash; ARGV[1] now; ARGV[2] the next sweep's time if this write sweeps; then per
     * tile: field, version, expireAt, payload.
     */
    static final String TEXT =
            """
            redis.replicate_commands()
            local key = KEYS[1]
            local now = tonumber(ARGV[1])
            local applied = 0
            local latest = ARGV[5]
            for i = 3, #ARGV, 4 do
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
            local due = redis.call('HGET', key, '~s')
            if not due or tonumber(due) <= now then
              local page = redis.call('HSCAN', key, redis.call('HGET', key, '~c') or '0', 'COUNT', 64)
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
              redis.call('HSET', key, '~c', page[1], '~s', ARGV[2])
            end
            local expiry = redis.call('HGET', key, '~x')
            if not expiry or tonumber(latest) > tonumber(expiry) then
              redis.call('HSET', key, '~x', latest)
              redis.call('PEXPIREAT', key, latest)
            end
            return applied
            """;

    /**
     * The least time between two sweeps of one entity's hash. Sweeping on every write took a
     * quarter (young hashes) to two fifths of Redis's CPU per tile written (docs/performance.md,
     * "Where the online writes go, and sweeping less often"), while a hash gains at most one
     * expired fine tile per tile length (a minute in the reference views): 64 fields every 10 s
     * keep up with that many times over.
     */
    static final long SWEEP_EVERY_MILLIS = 10_000;

    /** The name Redis knows the script by. */
    static final String SHA = sha1(TEXT);

    /** The latest expiry Redis takes (year 9999); a later one means "never" and is clamped. */
    private static final long MAX_EXPIRY = 253_402_300_799_999L;

    private final long sweepEveryMillis;

    /** The script for writes that sweep each hash at most once every {@code sweepEveryMillis}. */
    TileWriteScript(long sweepEveryMillis) {
        this.sweepEveryMillis = sweepEveryMillis;
    }

    /** The script's arguments for {@code tiles}, all of one hash, written at {@code now}. */
    byte[][] args(List<TileWrite> tiles, long now) {
        byte[][] a = new byte[2 + 4 * tiles.size()][];
        a[0] = ascii(Long.toString(now));
        a[1] = ascii(Long.toString(now + sweepEveryMillis));
        for (int i = 0; i < tiles.size(); i++) {
            TileWrite w = tiles.get(i);
            a[2 + 4 * i] = ascii(TileHash.field(w.key().level(), w.key().start()));
            a[3 + 4 * i] = ascii(Long.toString(w.version()));
            a[4 + 4 * i] = ascii(Long.toString(Math.min(w.expireAt(), MAX_EXPIRY)));
            a[5 + 4 * i] = w.payload();
        }
        return a;
    }

    /** The name Redis knows a script by: the hex SHA-1 of its text. */
    private static String sha1(String script) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(
                            java.security.MessageDigest.getInstance("SHA-1")
                                    .digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
