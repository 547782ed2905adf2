package io.sluice.features.online;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.sluice.features.online.OnlineStore.Found;
import io.sluice.features.online.OnlineStore.Level;
import io.sluice.features.online.OnlineStore.RangeRead;
import io.sluice.features.online.OnlineStore.TileRange;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
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
    static List<Found> found(List<Fields> fields, List<Answer> answers) {
        List<Found> found = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++) {
            found.add(found(fields.get(i), answers.get(i)));
        }
        return found;
    }

    /**
     * The live tiles of one read's answer to the {@code HMGET} of {@code names} (null: none sent).
     *
     * @throws IllegalStateException if a field held something other than a Sluice tile
     */
    static Found found(Fields names, Answer answer) {
        Found f = new Found();
        if (answer != null) {
            if (answer.malformed != null) {
                throw answer.malformed;
            }
            for (int j = 0; j < answer.payloads.size(); j++) {
                byte[] payload = answer.payloads.get(j);
                if (payload != null) {
                    f.of(names.levels()[j]).put(names.starts()[j], payload);
                }
            }
        }
        return f;
    }

    /**
     * One {@code HMGET}'s answer: for each field, in order, its tile's payload while the tile is
     * live, or null (a field the hash lacks, or an expired tile); and the first value that was not
     * a Sluice tile, if any.
     */
    static final class Answer {
        final ArrayList<byte[]> payloads = new ArrayList<>();
        IllegalStateException malformed;
    }

    /**
     * Takes an {@code HMGET}'s values as Lettuce decodes them, keeping of each stored {@code
     * expireAt,version,payload} only the payload of a tile live at {@code now}: one copy of the
     * bytes, where Lettuce's byte-array output copied each whole value and the payload was then
     * copied out of that (each 8% of what a read of 100 entities allocated, by JFR's samples).
     */
    static final class LivePayloads extends CommandOutput<byte[], byte[], Answer> {

        private final long now;

        LivePayloads(long now) {
            super(ByteArrayCodec.INSTANCE, new Answer());
            this.now = now;
        }

        @Override
        public void multi(int count) {
            output.payloads.ensureCapacity(count);
        }

        @Override
        public void set(ByteBuffer stored) {
            byte[] payload = null;
            if (stored != null) {
                try {
                    payload = livePayload(stored, now);
                } catch (IllegalStateException e) {
                    // Thrown where the answer is taken, as any other read's failure to decode.
                    if (output.malformed == null) {
                        output.malformed = e;
                    }
                }
            }
            output.payloads.add(payload);
        }
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
        int size = 0;
        for (byte[] name : names) {
            size += name.length + 8; // "$", up to three digits, two line ends
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(size);
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
    static byte[] livePayload(ByteBuffer stored, long now) {
        int from = stored.position();
        int first = indexOf(stored, from);
        // The decimal digits of expireAt, read in place (a read names up to 85 fields per entity).
        long expireAt = 0;
        for (int i = from; i < first; i++) {
            int digit = stored.get(i) - '0';
            if (digit < 0 || digit > 9) {
                byte[] text = new byte[first - from];
                stored.get(from, text);
                throw new IllegalStateException(
                        "not a Sluice tile: expireAt '"
                                + new String(text, StandardCharsets.US_ASCII)
                                + "'");
            }
            expireAt = expireAt * 10 + digit;
        }
        if (expireAt <= now) {
            return null;
        }
        int second = indexOf(stored, first + 1);
        byte[] payload = new byte[stored.limit() - second - 1];
        stored.get(second + 1, payload);
        return payload;
    }

    private static int indexOf(ByteBuffer bytes, int from) {
        for (int i = from; i < bytes.limit(); i++) {
            if (bytes.get(i) == ',') {
                return i;
            }
        }
        throw new IllegalStateException(
                "not a Sluice tile: no ',' after byte " + (from - bytes.position()));
    }
}
