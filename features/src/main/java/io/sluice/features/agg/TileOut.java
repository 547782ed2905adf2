package io.sluice.features.agg;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.UTFDataFormatException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Writes what {@link DataOutputStream} over a {@link ByteArrayOutputStream} would, byte for byte,
 * into one growing array: those two cost a synchronized call per field and a copy of the whole
 * buffer at the end, and the features job encodes a tile every time it publishes one.
 */
final class TileOut {
    private byte[] buffer;
    private int size;

    TileOut(int capacity) {
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
