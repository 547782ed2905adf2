package io.sluice.features.agg;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link DataOutputStream} wrote, straight from the array: a read decodes dozens of
 * tiles per entity, and {@link DataInputStream} over a {@link ByteArrayInputStream} costs a
 * synchronized call per field and two buffers per tile.
 */
final class TileIn {
    private static final VarHandle SHORT =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    // Big-endian, as DataOutputStream writes. A ByteBuffer's getLong was a sixth of a batch
    // read's evaluation in a profile; these views of the array are what the JIT reads fastest.
    private final byte[] array;
    private int position;

    TileIn(byte[] payload) {
        array = payload;
    }

    byte readByte() throws IOException {
        return array[need(1)];
    }

    boolean readBoolean() throws IOException {
        return readByte() != 0;
    }

    short readShort() throws IOException {
        return (short) SHORT.get(array, need(2));
    }

    int readInt() throws IOException {
        return (int) INT.get(array, need(4));
    }

    long readLong() throws IOException {
        return (long) LONG.get(array, need(8));
    }

    double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    /** {@link DataInputStream#readUTF}: a length, then modified UTF-8 (ASCII as is). */
    String readUTF() throws IOException {
        int length = Short.toUnsignedInt(readShort());
        if (length > array.length - position) {
            throw truncated();
        }
        int from = position;
        boolean ascii = true;
        for (int i = from; i < from + length && ascii; i++) {
            ascii = array[i] > 0; // modified UTF-8 writes NUL as two bytes
        }
        String text =
                ascii
                        ? new String(array, from, length, StandardCharsets.ISO_8859_1)
                        : new DataInputStream(new ByteArrayInputStream(array, from - 2, length + 2))
                                .readUTF();
        position += length;
        return text;
    }

    /**
     * Partial keys read before, by a hash of their bytes: a read decodes the same few keys from
     * every mid and coarse tile of every entity, and a new string for each was a tenth of a batch
     * read's allocation. Slots are overwritten freely (strings are immutable, so any thread may see
     * any of them).
     */
    private static final String[] NAMES = new String[256];

    /** {@link #readUTF} of a partial key, the same string as the last time these bytes came. */
    String readName() throws IOException {
        int at = position;
        if (array.length - at < 2) {
            throw truncated();
        }
        int length = Short.toUnsignedInt((short) SHORT.get(array, at));
        if (length > array.length - at - 2) {
            throw truncated();
        }
        int from = at + 2;
        int hash = length;
        for (int i = from; i < from + length; i++) {
            hash = 31 * hash + array[i];
        }
        int slot = (hash ^ (hash >>> 16)) & (NAMES.length - 1);
        String cached = NAMES[slot];
        if (cached != null && sameAscii(cached, array, from, length)) {
            position = at + 2 + length;
            return cached;
        }
        String name = readUTF();
        NAMES[slot] = name;
        return name;
    }

    private static boolean sameAscii(String text, byte[] array, int from, int length) {
        if (text.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            byte b = array[from + i];
            if (b <= 0 || text.charAt(i) != b) {
                return false;
            }
        }
        return true;
    }

    /** The position of the next {@code bytes} bytes, which must all be there. */
    private int need(int bytes) throws IOException {
        int at = position;
        if (array.length - at < bytes) {
            throw truncated();
        }
        position = at + bytes;
        return at;
    }

    private static IOException truncated() {
        return new EOFException("the tile ends before its last field");
    }
}
