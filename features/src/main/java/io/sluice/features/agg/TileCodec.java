package io.sluice.features.agg;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

    /** A fine tile's events. */
    public static byte[] encodeFine(Tile tile) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 48 * tile.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeInt(tile.size());
            for (EventEntry e : tile.events()) {
                out.writeLong(e.ts());
                out.writeUTF(e.id());
                out.writeShort(e.values().length);
                for (Object v : e.values()) {
                    writeValue(out, v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static Tile decodeFine(long start, byte[] payload) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
            checkFormat(in);
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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * partials.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** A coarse tile's partials by partial key. */
    public static Map<String, Partial> decodeCoarse(byte[] payload) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
            checkFormat(in, COARSE_FORMAT);
            int n = in.readShort();
            Map<String, Partial> partials = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
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
                partials.put(name, p);
            }
            return partials;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void checkFormat(DataInputStream in) throws IOException {
        checkFormat(in, FORMAT);
    }

    private static void checkFormat(DataInputStream in, byte expected) throws IOException {
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

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
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

    private static Object readValue(DataInputStream in) throws IOException {
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
