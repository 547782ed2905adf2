package io.sluice.event;

import io.sluice.event.Deduplicator.Kept;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Serializes the de-duplication state's {@link Kept} values byte for byte as Flink's {@link
 * PojoSerializer} does, but encodes each into a buffer of its own ({@link DataOutputSerializer})
 * and hands it to the output in one call.
 *
 * <p>A heap state backend writes every value of the de-duplication state at every checkpoint, one
 * per id within {@code dedup_retention}, into an unbuffered, synchronized stream. The POJO
 * serializer reads each field by reflection and writes the features job's entity key one character
 * at a time, so that it was the largest part of the features job's checkpoint snapshots
 * (docs/performance.md, "The de-duplication state's values"). The bytes are the same, so a
 * savepoint taken with the POJO serializer restores with this one (this snapshot declares itself
 * compatible as is with that one's). Not the other way: a Sluice from before this serializer cannot
 * restore a savepoint taken after it.
 *
 * <p>The POJO format: a flags byte ({@code 1} for null, {@code 2} for an instance of the class
 * itself), then each field in the order of their names ({@code digest}, {@code eventTime}, {@code
 * key}), each as a null marker (a boolean) and, if not null, the value in its type's serializer's
 * format: the digest's length and bytes, the time's 8 bytes, the key in {@link
 * StringValue#writeString}'s format.
 *
 * <p>Not thread-safe (it reuses a buffer): {@link #duplicate} gives each user its own.
 */
public final class KeptSerializer extends TypeSerializer<Kept> {

    private static final long serialVersionUID = 1L;

    /** {@link PojoSerializer}'s flag for a null value. */
    private static final int IS_NULL = 1;

    /** {@link PojoSerializer}'s flag for a value of the class itself, not a subclass. */
    private static final int NO_SUBCLASS = 2;

    private transient DataOutputSerializer buffer;

    /**
     * Immutable in use: {@link Deduplicator} replaces a kept value, never changes one, so the heap
     * backend need not copy values while a snapshot of them is being written.
     */
    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<Kept> duplicate() {
        return new KeptSerializer();
    }

    @Override
    public Kept createInstance() {
        return new Kept();
    }

    @Override
    public Kept copy(Kept from) {
        return from;
    }

    @Override
    public Kept copy(Kept from, Kept reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Kept kept, DataOutputView target) throws IOException {
        if (kept == null) {
            target.write(IS_NULL);
            return;
        }
        if (buffer == null) {
            buffer = new DataOutputSerializer(96);
        }
        DataOutputSerializer b = buffer;
        b.clear();
        b.writeByte(NO_SUBCLASS);
        b.writeBoolean(kept.digest == null);
        if (kept.digest != null) {
            b.writeInt(kept.digest.length);
            b.write(kept.digest);
        }
        b.writeBoolean(false);
        b.writeLong(kept.eventTime);
        b.writeBoolean(kept.key == null);
        if (kept.key != null) {
            StringValue.writeString(kept.key, b);
        }
        target.write(b.getSharedBuffer(), 0, b.length());
    }

    @Override
    public Kept deserialize(DataInputView source) throws IOException {
        int flags = source.readByte();
        if ((flags & IS_NULL) != 0) {
            return null;
        }
        if (flags != NO_SUBCLASS) {
            throw new IOException("not a de-duplication state value: flags " + flags);
        }
        Kept kept = new Kept();
        if (!source.readBoolean()) {
            kept.digest = new byte[source.readInt()];
            source.readFully(kept.digest);
        }
        if (!source.readBoolean()) {
            kept.eventTime = source.readLong();
        }
        if (!source.readBoolean()) {
            kept.key = StringValue.readString(source);
        }
        return kept;
    }

    @Override
    public Kept deserialize(Kept reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof KeptSerializer;
    }

    @Override
    public int hashCode() {
        return KeptSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<Kept> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Compatible as is with its own snapshots and with the {@link PojoSerializer}'s of Kept. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Kept> {

        public Snapshot() {
            super(KeptSerializer::new);
        }

        @Override
        public TypeSerializerSchemaCompatibility<Kept> resolveSchemaCompatibility(
                TypeSerializerSnapshot<Kept> oldSnapshot) {
            if (oldSnapshot instanceof PojoSerializerSnapshot) {
                // Whatever the POJO serializer of Kept as it is now reads as is, this one reads
                // too: the bytes are the same. (A snapshot of other fields needs a migration,
                // which this serializer does not do.)
                TypeSerializerSnapshot<Kept> pojo =
                        TypeInformation.of(Kept.class)
                                .createSerializer(new SerializerConfigImpl())
                                .snapshotConfiguration();
                return pojo.resolveSchemaCompatibility(oldSnapshot).isCompatibleAsIs()
                        ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                        : TypeSerializerSchemaCompatibility.incompatible();
            }
            return super.resolveSchemaCompatibility(oldSnapshot);
        }
    }
}
