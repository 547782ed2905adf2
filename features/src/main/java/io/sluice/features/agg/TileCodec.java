package io.sluice.features.agg;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
        Out out = new Out((cached == null ? 64 : cached.length) + 48 * (size - done));
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
            In in = new In(payload);
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
        Out out = new Out(64 * partials.size());
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

    /** A coarse tile's partials by partial key. */
    public static Map<String, Partial> decodeCoarse(byte[] payload) {
        try {
            In in = new In(payload);
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

    private static void checkFormat(In in, byte expected) throws IOException {
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

    private static void writeValue(Out out, Object v) {
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

    private static Object readValue(In in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case LONG -> in.readLong();
            case DOUBLE -> in.readDouble();
            case STRING -> in.readUTF();
            default -> throw new IOException("unknown value tag " + tag);
        };
    }

    /**
     * Writes what {@link DataOutputStream} over a {@link ByteArrayOutputStream} would, byte for
     * byte, into one growing array: those two cost a synchronized call per field and a copy of the
     * whole buffer at the end, and the features job encodes a tile every time it publishes one.
     */
    static final class Out {
        private byte[] buffer;
        private int size;

        Out(int capacity) {
            buffer = new byte[Math.max(16, capacity)];
        }

        private void ensure(int more) {
            if (size + more > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
            }
        }

        void writeByte(int v) {
            ensure(1);
            buffer[size++] = (byte) v;
        }

        void writeBoolean(boolean v) {
            writeByte(v ? 1 : 0);
        }

        void writeShort(int v) {
            ensure(2);
            buffer[size++] = (byte) (v >>> 8);
            buffer[size++] = (byte) v;
        }

        void writeInt(int v) {
            ensure(4);
            for (int shift = 24; shift >= 0; shift -= 8) {
                buffer[size++] = (byte) (v >>> shift);
            }
        }

        void write(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buffer, size, bytes.length);
            size += bytes.length;
        }

        /** Overwrites the int at {@code offset}, which was written already. */
        void setInt(int offset, int v) {
            for (int i = 0; i < 4; i++) {
                buffer[offset + i] = (byte) (v >>> (24 - 8 * i));
            }
        }

        void writeLong(long v) {
            ensure(8);
            for (int shift = 56; shift >= 0; shift -= 8) {
                buffer[size++] = (byte) (v >>> shift);
            }
        }

        void writeDouble(double v) {
            writeLong(Double.doubleToLongBits(v));
        }

        /**
         * {@link DataOutputStream#writeUTF}: the encoded length, then modified UTF-8 (NUL and
         * everything above 0x7F in two or three bytes).
         */
        void writeUTF(String text) {
            int chars = text.length();
            int length = 0;
            for (int i = 0; i < chars; i++) {
                char c = text.charAt(i);
                length += c >= 1 && c <= 0x7F ? 1 : c <= 0x7FF ? 2 : 3;
            }
            if (length > 0xFFFF) {
                throw new UncheckedIOException(
                        new UTFDataFormatException(
                                "a string of " + length + " encoded bytes is too long for a tile"));
            }
            writeShort(length);
            ensure(length);
            for (int i = 0; i < chars; i++) {
                char c = text.charAt(i);
                if (c >= 1 && c <= 0x7F) {
                    buffer[size++] = (byte) c;
                } else if (c <= 0x7FF) {
                    buffer[size++] = (byte) (0xC0 | ((c >> 6) & 0x1F));
                    buffer[size++] = (byte) (0x80 | (c & 0x3F));
                } else {
                    buffer[size++] = (byte) (0xE0 | ((c >> 12) & 0x0F));
                    buffer[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                    buffer[size++] = (byte) (0x80 | (c & 0x3F));
                }
            }
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buffer, size);
        }
    }

    /**
     * Reads what {@link DataOutputStream} wrote, straight from the array: a read decodes dozens of
     * tiles per entity, and {@link DataInputStream} over a {@link ByteArrayInputStream} costs a
     * synchronized call per field and two buffers per tile.
     */
    private static final class In {
        private final ByteBuffer buffer;

        In(byte[] payload) {
            buffer = ByteBuffer.wrap(payload); // big-endian, as DataOutputStream writes
        }

        byte readByte() throws IOException {
            try {
                return buffer.get();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        boolean readBoolean() throws IOException {
            return readByte() != 0;
        }

        short readShort() throws IOException {
            try {
                return buffer.getShort();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        int readInt() throws IOException {
            try {
                return buffer.getInt();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        long readLong() throws IOException {
            try {
                return buffer.getLong();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        double readDouble() throws IOException {
            return Double.longBitsToDouble(readLong());
        }

        /** {@link DataInputStream#readUTF}: a length, then modified UTF-8 (ASCII as is). */
        String readUTF() throws IOException {
            int length = Short.toUnsignedInt(readShort());
            if (length > buffer.remaining()) {
                throw truncated();
            }
            byte[] array = buffer.array();
            int from = buffer.arrayOffset() + buffer.position();
            boolean ascii = true;
            for (int i = from; i < from + length && ascii; i++) {
                ascii = array[i] > 0; // modified UTF-8 writes NUL as two bytes
            }
            String text =
                    ascii
                            ? new String(array, from, length, StandardCharsets.ISO_8859_1)
                            : new DataInputStream(
                                            new ByteArrayInputStream(array, from - 2, length + 2))
                                    .readUTF();
            buffer.position(buffer.position() + length);
            return text;
        }

        private static IOException truncated() {
            return new EOFException("the tile ends before its last field");
        }
    }
}
