package io.sluice.features.online;

import io.lettuce.core.KeyValue;
import io.sluice.features.online.OnlineStore.Found;
import io.sluice.features.online.OnlineStore.Level;
import io.sluice.features.online.OnlineStore.RangeRead;
import io.sluice.features.online.OnlineStore.TileRange;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The layout of {@link RedisOnlineStore}'s hash of one (view, entity): its key, the names of its
 * tile fields, and a tile's stored value {@code <expireAt>,<version>,<payload>}, decoded from the
 * answers of the {@code HMGET}s of a read.
 */
final class TileHash {

    private TileHash() {}

    /** The hash of one (view, entity). */
    static byte[] key(String view, String entity) {
        return ("sluice:tiles:{" + view + ":" + entity + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** A SCAN pattern for every hash of {@code view}, with glob characters escaped. */
    static String pattern(String view) {
        return "sluice:tiles:{" + view.replaceAll("([\\\\*?\\[\\]])", "\\\\$1") + ":*";
    }

    /** The field of a tile. */
    static String field(Level level, long start) {
        return switch (level) {
                    case FINE -> "f";
                    case MID -> "m";
                    case COARSE -> "c";
                }
                + start;
    }

    /** The hash fields of each read. Reads of one request mostly ask for the same runs. */
    static List<Fields> fields(List<RangeRead> reads) {
        Map<List<TileRange>, Fields> named = new HashMap<>();
        List<Fields> fields = new ArrayList<>(reads.size());
        for (RangeRead r : reads) {
            fields.add(named.computeIfAbsent(r.ranges(), Fields::of));
        }
        return fields;
    }

    /** The live tiles of each read's answer (null: no command was sent). */
    static List<Found> found(
            List<Fields> fields, List<List<KeyValue<byte[], byte[]>>> answers, long now) {
        List<Found> found = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++) {
            found.add(found(fields.get(i), answers.get(i), now));
        }
        return found;
    }

    /**
     * The live tiles of one read's answer to the {@code HMGET} of {@code names} (null: none sent).
     */
    static Found found(Fields names, List<KeyValue<byte[], byte[]>> values, long now) {
        Found f = new Found();
        if (values != null) {
            for (int j = 0; j < values.size(); j++) {
                KeyValue<byte[], byte[]> kv = values.get(j);
                byte[] payload = kv.hasValue() ? livePayload(kv.getValue(), now) : null;
                if (payload != null) {
                    f.of(names.levels()[j]).put(names.starts()[j], payload);
                }
            }
        }
        return f;
    }

    /** The hash fields of runs of tiles: names, and the level and start of each. */
    record Fields(byte[][] names, Level[] levels, long[] starts) {
        static Fields of(List<TileRange> ranges) {
            List<byte[]> names = new ArrayList<>();
            List<Level> levels = new ArrayList<>();
            List<Long> starts = new ArrayList<>();
            for (TileRange r : ranges) {
                for (long s = r.from(); s < r.to(); s += r.step()) {
                    names.add(field(r.level(), s).getBytes(StandardCharsets.US_ASCII));
                    levels.add(r.level());
                    starts.add(s);
                }
            }
            Level[] f = levels.toArray(new Level[0]);
            long[] st = new long[starts.size()];
            for (int i = 0; i < st.length; i++) {
                st[i] = starts.get(i);
            }
            return new Fields(names.toArray(byte[][]::new), f, st);
        }
    }

    /** The payload of a stored {@code expireAt,version,payload}, or null once it has expired. */
    static byte[] livePayload(byte[] stored, long now) {
        int first = indexOf(stored, 0);
        // The decimal digits of expireAt, read in place (a read names up to 85 fields per entity).
        long expireAt = 0;
        for (int i = 0; i < first; i++) {
            int digit = stored[i] - '0';
            if (digit < 0 || digit > 9) {
                throw new IllegalStateException(
                        "not a Sluice tile: expireAt '"
                                + new String(stored, 0, first, StandardCharsets.US_ASCII)
                                + "'");
            }
            expireAt = expireAt * 10 + digit;
        }
        if (expireAt <= now) {
            return null;
        }
        int second = indexOf(stored, first + 1);
        return java.util.Arrays.copyOfRange(stored, second + 1, stored.length);
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == ',') {
                return i;
            }
        }
        throw new IllegalStateException("not a Sluice tile: no ',' after byte " + from);
    }
}
