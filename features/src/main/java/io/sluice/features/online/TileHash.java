package io.sluice.features.online;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.sluice.features.online.OnlineStore.Found;
import io.sluice.features.online.OnlineStore.Level;
import io.sluice.features.online.OnlineStore.RangeRead;
import io.sluice.features.online.OnlineStore.TileRange;
import java.io.ByteArrayOutputStream;
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

    private static final byte[] CRLF = {'\r', '\n'};

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
    static List<Found> found(List<Fields> fields, List<List<byte[]>> answers, long now) {
        List<Found> found = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++) {
            found.add(found(fields.get(i), answers.get(i), now));
        }
        return found;
    }

    /**
     * The live tiles of one read's answer to the {@code HMGET} of {@code names}: a value (null for
     * a field the hash lacks) for each name, in order (null: none sent).
     */
    static Found found(Fields names, List<byte[]> values, long now) {
        Found f = new Found();
        if (values != null) {
            for (int j = 0; j < values.size(); j++) {
                byte[] stored = values.get(j);
                byte[] payload = stored == null ? null : livePayload(stored, now);
                if (payload != null) {
                    f.of(names.levels()[j]).put(names.starts()[j], payload);
                }
            }
        }
        return f;
    }

    /**
     * The hash fields of runs of tiles: names, the level and start of each, and the names as a
     * command's arguments ({@link TileHash#bulkStrings}).
     */
    record Fields(byte[][] names, Level[] levels, long[] starts, byte[] arguments) {
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
            byte[][] n = names.toArray(byte[][]::new);
            return new Fields(n, f, st, bulkStrings(n));
        }
    }

    /**
     * {@code names} as the arguments of a Redis command: one RESP bulk string ({@code
     * $<length>\r\n<name>\r\n}) after another, encoded once for every read of a request that names
     * them.
     */
    static byte[] bulkStrings(byte[][] names) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] name : names) {
            out.writeBytes(("$" + name.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(name);
            out.writeBytes(CRLF);
        }
        return out.toByteArray();
    }

    /**
     * The arguments of one {@code HMGET}: the hash's key, as the key argument a cluster connection
     * routes the command by, then the fields, written as {@link Fields#arguments} are. Written by
     * hand because Lettuce's {@code hmget} makes an argument object for each field and writes each
     * length of two digits or more through {@code Long.toString}: about 12% of what a read of 100
     * entities allocated (JFR's allocation samples), for some 6,000 fields.
     */
    static final class HmgetArgs extends CommandArgs<byte[], byte[]> {

        private final Fields fields;

        HmgetArgs(byte[] key, Fields fields) {
            super(ByteArrayCodec.INSTANCE);
            addKey(key);
            this.fields = fields;
        }

        @Override
        public int count() {
            return super.count() + fields.names().length;
        }

        @Override
        public void encode(ByteBuf buf) {
            super.encode(buf);
            buf.writeBytes(fields.arguments());
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
