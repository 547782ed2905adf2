package io.sluice.features.agg;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes an online store keeps for a tile. A fine tile is its events (so that a window's head
 * can be cut at any {@code t}); a mid or coarse tile is the partials over its fine tiles, one per
 * partial key of the view's features ({@link CoarsePartials}). A small fixed binary layout (a
 * version byte, then {@link DataOutputStream} fields), because a tile is read on every feature
 * request.
 */
public final class TileCodec {

    /**
     * Fine tiles' layout: 3 since stores also hold mid tiles ({@link ViewDef#midMillis()}); the
     * events are laid out as in 1, but a store whose fine tiles say 1 was written without mid
     * tiles, and a read of it would miss the events they should hold, so it is refused.
     */
    private static final byte FORMAT = 3;

    /**
     * Mid and coarse tiles' layout: 3 keys partials by {@link FeatureDef#partialKey()}, as 2 did,
     * in a store that also holds mid tiles; 2 (no mid tiles) and 1 (by feature name) are refused.
     */
    private static final byte COARSE_FORMAT = 3;

    private static final byte NULL = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte STRING = 3;

    private TileCodec() {}

    /**
     * A fine tile's events. The bytes are kept with the tile until it changes, so a tile published
     * and then checkpointed, or checkpointed again unchanged, is encoded once; callers must not
     * modify them.
     */
    public static byte[] encodeFine(Tile tile) {
        byte[] cached = tile.encoded();
        int size = tile.size();
        // The kept bytes encode the tile's first events: all of them, or all but those added
        // since at its end (Tile#add keeps them only then). A live tile grows at its end, so
        // each change copies the bytes it had and encodes only its new events, instead of
        // encoding every event again.
        int done = cached == null ? 0 : encodedCount(cached);
        if (done == size && cached != null) {
            return cached;
        }
        TileOut out = new TileOut((cached == null ? 64 : cached.length) + 48 * (size - done));
        if (cached == null) {
            out.writeByte(FORMAT);
            out.writeInt(size);
        } else {
            out.write(cached);
            out.setInt(1, size);
        }
        List<EventEntry> events = tile.events();
        for (int i = done; i < size; i++) {
            EventEntry e = events.get(i);
            out.writeLong(e.ts());
            out.writeUTF(e.id());
            out.writeShort(e.values().length);
            for (Object v : e.values()) {
                writeValue(out, v);
            }
        }
        byte[] bytes = out.toByteArray();
        tile.encoded(bytes);
        return bytes;
    }

    /** How many events a fine tile's bytes hold (the int after the version byte). */
    static int encodedCount(byte[] fine) {
        return (fine[1] & 0xFF) << 24
                | (fine[2] & 0xFF) << 16
                | (fine[3] & 0xFF) << 8
                | fine[4] & 0xFF;
    }

    public static Tile decodeFine(long start, byte[] payload) {
        try {
            TileIn in = new TileIn(payload);
            checkFormat(in, FORMAT);
            int n = in.readInt();
            ArrayList<EventEntry> events = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long ts = in.readLong();
                String id = in.readUTF();
                Object[] values = new Object[in.readShort()];
                for (int j = 0; j < values.length; j++) {
                    values[j] = readValue(in);
                }
                events.add(new EventEntry(ts, id, values));
            }
            return Tile.ofOrdered(start, events);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A coarse tile from its partials by partial key ({@link CoarsePartials}). */
    public static byte[] encodeCoarse(Map<String, Partial> partials) {
        TileOut out = new TileOut(64 * partials.size());
        out.writeByte(COARSE_FORMAT);
        out.writeShort(partials.size());
        for (Map.Entry<String, Partial> e : partials.entrySet()) {
            Partial p = e.getValue();
            out.writeUTF(e.getKey());
            out.writeLong(p.count);
            out.writeLong(p.longSum);
            out.writeDouble(p.doubleSum);
            writeValue(out, p.min);
            writeValue(out, p.max);
            writeValue(out, p.last);
            out.writeLong(p.lastTs);
            out.writeBoolean(p.lastId != null);
            if (p.lastId != null) {
                out.writeUTF(p.lastId);
            }
            out.writeLong(p.latestTs);
        }
        return out.toByteArray();
    }

    /** A coarse tile's partials by partial key, in their stored order. */
    public static Map<String, Partial> decodeCoarse(byte[] payload) {
        var byKey =
                new Partials() {
                    Map<String, Partial> partials;

                    @Override
                    public void count(int count) {
                        partials = new LinkedHashMap<>(count * 4 / 3 + 1);
                    }

                    @Override
                    public void add(String key, Partial partial) {
                        partials.put(key, partial);
                    }
                };
        decodeCoarse(payload, byKey);
        return byKey.partials;
    }

    /** Receives a coarse tile's partials as they are decoded. */
    public interface Partials {
        /** How many {@link #add} follow. */
        void count(int count);

        void add(String key, Partial partial);
    }

    /**
     * A coarse tile's partials into {@code into}, for a reader that keeps them otherwise than in a
     * map (an online read decodes thousands of tiles of two or three keys each).
     */
    public static void decodeCoarse(byte[] payload, Partials into) {
        try {
            TileIn in = new TileIn(payload);
            checkFormat(in, COARSE_FORMAT);
            int n = in.readShort();
            into.count(n);
            for (int i = 0; i < n; i++) {
                String name = in.readName();
                Partial p = new Partial();
                p.count = in.readLong();
                p.longSum = in.readLong();
                p.doubleSum = in.readDouble();
                p.min = readValue(in);
                p.max = readValue(in);
                p.last = readValue(in);
                p.lastTs = in.readLong();
                p.lastId = in.readBoolean() ? in.readUTF() : null;
                p.latestTs = in.readLong();
                into.add(name, p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void checkFormat(TileIn in, byte expected) throws IOException {
        byte format = in.readByte();
        if (format != expected) {
            throw new IOException(
                    "tile format "
                            + format
                            + " is not this Sluice's ("
                            + expected
                            + "): the online store was written by another version; rebuild it"
                            + " with `sluice features --rebuild`");
        }
    }

    private static void writeValue(TileOut out, Object v) {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Long l) {
            out.writeByte(LONG);
            out.writeLong(l);
        } else if (v instanceof Double d) {
            out.writeByte(DOUBLE);
            out.writeDouble(d);
        } else {
            out.writeByte(STRING);
            out.writeUTF(v.toString());
        }
    }

    private static Object readValue(TileIn in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case LONG -> in.readLong();
            case DOUBLE -> in.readDouble();
            case STRING -> in.readUTF();
            default -> throw new IOException("unknown value tag " + tag);
        };
    }
}
