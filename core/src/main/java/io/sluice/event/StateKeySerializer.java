package io.sluice.event;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Serializes the string keys of keyed state byte for byte as Flink's {@link StringSerializer} does,
 * but hands each key to the output in one call.
 *
 * <p>A heap state backend writes every key of the de-duplication state at every checkpoint, into an
 * unbuffered, synchronized stream; {@code StringSerializer} writes a key one character at a time,
 * so that a lock per character was the largest single cost of the ingest job (see the README,
 * "Where ingest's time goes"). The bytes are the same, so a savepoint taken with {@code
 * StringSerializer}'s keys restores with this one (this snapshot declares itself compatible as is
 * with that one's). Not the other way: {@code StringSerializer} does not know this snapshot, so a
 * Sluice from before this serializer cannot restore a savepoint taken after it.
 *
 * <p>Not thread-safe (it reuses a buffer): {@link #duplicate} gives each user its own.
 */
public final class StateKeySerializer extends TypeSerializer<String> {

    private static final long serialVersionUID = 1L;

    private transient byte[] buffer;

    private transient char[] text;

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<String> duplicate() {
        return new StateKeySerializer();
    }

    @Override
    public String createInstance() {
        return "";
    }

    @Override
    public String copy(String from) {
        return from;
    }

    @Override
    public String copy(String from, String reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    /**
     * {@link StringValue#writeString}'s format: the length plus one, then each character, each as a
     * base-128 varint (low bits first). A character takes at most 3 bytes, the length 5.
     */
    @Override
    public void serialize(String record, DataOutputView target) throws IOException {
        if (record == null) {
            target.write(0);
            return;
        }
        int chars = record.length();
        int most = 3 * chars + 5;
        if (buffer == null || buffer.length < most) {
            buffer = new byte[Math.max(64, most)];
            text = new char[buffer.length / 3];
        }
        // One bulk copy instead of a bounds-checked charAt per character (ids that are not
        // Latin-1 are stored as UTF-16, where charAt showed up in the profile).
        record.getChars(0, chars, text, 0);
        char[] t = text;
        byte[] b = buffer;
        int pos = 0;
        int length = chars + 1;
        while (length >= 0x80) {
            b[pos++] = (byte) (length | 0x80);
            length >>>= 7;
        }
        b[pos++] = (byte) length;
        for (int i = 0; i < chars; i++) {
            int c = t[i];
            while (c >= 0x80) {
                b[pos++] = (byte) (c | 0x80);
                c >>>= 7;
            }
            b[pos++] = (byte) c;
        }
        target.write(b, 0, pos);
    }

    @Override
    public String deserialize(DataInputView source) throws IOException {
        return StringValue.readString(source);
    }

    @Override
    public String deserialize(String reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        StringValue.copyString(source, target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof StateKeySerializer;
    }

    @Override
    public int hashCode() {
        return StateKeySerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<String> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Compatible as is with its own snapshots and with {@link StringSerializer}'s. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<String> {

        public Snapshot() {
            super(StateKeySerializer::new);
        }

        @Override
        public TypeSerializerSchemaCompatibility<String> resolveSchemaCompatibility(
                TypeSerializerSnapshot<String> oldSnapshot) {
            if (oldSnapshot instanceof StringSerializer.StringSerializerSnapshot) {
                return TypeSerializerSchemaCompatibility.compatibleAsIs();
            }
            return super.resolveSchemaCompatibility(oldSnapshot);
        }
    }
}
