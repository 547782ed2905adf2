package io.sluice.features.agg;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link DataOutputStream} wrote, straight from the array: a read decodes dozens of
 * tiles per entity, and {@link DataInputStream} over a {@link ByteArrayInputStream} costs a
 * synchronized call per field and two buffers per tile.
 */
final class TileIn {
    private final ByteBuffer buffer;

    TileIn(byte[] payload) {
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
                        : new DataInputStream(new ByteArrayInputStream(array, from - 2, length + 2))
                                .readUTF();
        buffer.position(buffer.position() + length);
        return text;
    }

    private static IOException truncated() {
        return new EOFException("the tile ends before its last field");
    }
}
