package io.sluice.event;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary decoding over one bounded byte array, refusing every length that the bytes cannot
 * back before anything is allocated for it.
 *
 * <p>Avro's own decoder trusts a string's or array's length prefix up to its JVM-wide limits (about
 * 2 GiB by default), so an 18-byte record could make it allocate 2 GiB. Here a string, bytes or
 * fixed length must fit in the bytes left, and the items that arrays and maps claim must not, all
 * together, outnumber the record's bytes (every item takes at least one byte, except items of type
 * null or of empty records, which this decoder therefore refuses in bulk). Strings must be
 * well-formed UTF-8. A refusal is a {@link Malformed}, an {@link IOException}.
 *
 * <p>Not thread-safe; reused for every record.
 */
final class BoundedBinaryDecoder extends Decoder {

    /** The bytes of a record contradict themselves, or claim more than there is. */
    static final class Malformed extends IOException {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message, null);
        }
    }

    /** A ByteArrayInputStream that tells how much is left; the direct decoder never reads ahead. */
    private static final class Cursor extends ByteArrayInputStream {
        Cursor() {
            super(new byte[0]);
        }

        void reset(byte[] bytes, int offset) {
            this.buf = bytes;
            this.pos = offset;
            this.count = bytes.length;
            this.mark = offset;
        }

        int remaining() {
            return count - pos;
        }
    }

    private final Cursor cursor = new Cursor();
    private BinaryDecoder in;
    private long itemBudget;

    /** Starts decoding {@code bytes} from {@code offset}. */
    BoundedBinaryDecoder reset(byte[] bytes, int offset) {
        cursor.reset(bytes, offset);
        in = DecoderFactory.get().directBinaryDecoder(cursor, in);
        itemBudget = bytes.length - offset;
        return this;
    }

    /** Bytes not consumed yet. */
    int remaining() {
        return cursor.remaining();
    }

    private int length(String what) throws IOException {
        long length = in.readLong();
        if (length < 0 || length > cursor.remaining()) {
            throw new Malformed(
                    what
                            + " length "
                            + length
                            + " exceeds the "
                            + cursor.remaining()
                            + " bytes left in the record");
        }
        return (int) length;
    }

    private long items(long count, String what) throws IOException {
        // A negative count is followed by the block's size in bytes (Avro's blocked encoding).
        if (count < 0) {
            long size = in.readLong();
            if (size < 0 || size > cursor.remaining()) {
                throw new Malformed(what + " block of " + size + " bytes exceeds the record");
            }
            count = count == Long.MIN_VALUE ? Long.MAX_VALUE : -count;
        }
        if (count > itemBudget) {
            throw new Malformed(
                    what
                            + " of "
                            + count
                            + " items exceeds the "
                            + itemBudget
                            + " items the record's bytes can hold");
        }
        itemBudget -= count;
        return count;
    }

    private long skipItems(long count, String what) throws IOException {
        // Skipped items allocate nothing, but a huge count of zero-byte items would spin.
        if (count > itemBudget) {
            throw new Malformed(what + " of " + count + " items exceeds the record");
        }
        itemBudget -= count;
        return count;
    }

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    @Override
    public boolean readBoolean() throws IOException {
        return in.readBoolean();
    }

    @Override
    public int readInt() throws IOException {
        return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int length = length("string");
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(length);
        in.readFixed(result.getBytes(), 0, length);
        checkUtf8(result.getBytes(), length);
        return result;
    }

    @Override
    public String readString() throws IOException {
        int length = length("string");
        byte[] bytes = new byte[length];
        in.readFixed(bytes, 0, length);
        checkUtf8(bytes, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void checkUtf8(byte[] bytes, int length) throws Malformed {
        int bad = StrictText.invalidUtf8(bytes, 0, length);
        if (bad >= 0) {
            throw new Malformed("string is not well-formed UTF-8 at byte " + bad);
        }
    }

    @Override
    public void skipString() throws IOException {
        in.skipFixed(length("string"));
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int length = length("bytes");
        ByteBuffer result =
                old != null && old.hasArray() && old.capacity() >= length
                        ? old.clear()
                        : ByteBuffer.allocate(length);
        in.readFixed(result.array(), result.arrayOffset(), length);
        result.limit(length);
        return result;
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipFixed(length("bytes"));
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        if (length > cursor.remaining()) {
            throw new Malformed("fixed of " + length + " bytes exceeds the record");
        }
        in.readFixed(bytes, start, length);
    }

    @Override
    public void skipFixed(int length) throws IOException {
        if (length > cursor.remaining()) {
            throw new Malformed("fixed of " + length + " bytes exceeds the record");
        }
        in.skipFixed(length);
    }

    @Override
    public int readEnum() throws IOException {
        return in.readEnum();
    }

    @Override
    public long readArrayStart() throws IOException {
        return items(in.readLong(), "array");
    }

    @Override
    public long arrayNext() throws IOException {
        return items(in.readLong(), "array");
    }

    @Override
    public long skipArray() throws IOException {
        return skipItems(in.skipArray(), "array");
    }

    @Override
    public long readMapStart() throws IOException {
        return items(in.readLong(), "map");
    }

    @Override
    public long mapNext() throws IOException {
        return items(in.readLong(), "map");
    }

    @Override
    public long skipMap() throws IOException {
        return skipItems(in.skipMap(), "map");
    }

    @Override
    public int readIndex() throws IOException {
        return in.readIndex();
    }
}
