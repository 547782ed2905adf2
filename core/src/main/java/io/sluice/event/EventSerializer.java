package io.sluice.event;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes {@link Event}s across exchanges (the de-duplication key-by of the ingest and features
 * jobs): field by field without reflection, text as length-prefixed UTF-8. Flink's POJO serializer
 * sets each field reflectively and showed up in the ingest profile on both sides of the exchange.
 *
 * <p>Events are never kept in state, so this format is only ever read by the job that wrote it.
 */
public final class EventSerializer extends TypeSerializer<Event> {

    private static final long serialVersionUID = 1L;

    private static final int ID_NULL = 1;
    private static final int KEY_NULL = 2;
    private static final int PAYLOAD_NULL = 4;
    private static final int RETRACTION = 8;

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Event> duplicate() {
        return this;
    }

    @Override
    public Event createInstance() {
        return new Event();
    }

    @Override
    public Event copy(Event from) {
        Event e = new Event(from.id, from.key, from.eventTime, from.payload);
        e.retraction = from.retraction;
        return e;
    }

    @Override
    public Event copy(Event from, Event reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Event e, DataOutputView out) throws IOException {
        int flags =
                (e.id == null ? ID_NULL : 0)
                        | (e.key == null ? KEY_NULL : 0)
                        | (e.payload == null ? PAYLOAD_NULL : 0)
                        | (e.retraction ? RETRACTION : 0);
        out.writeByte(flags);
        out.writeLong(e.eventTime);
        if (e.id != null) {
            writeBytes(e.id.getBytes(StandardCharsets.UTF_8), out);
        }
        if (e.key != null) {
            writeBytes(e.key.getBytes(StandardCharsets.UTF_8), out);
        }
        if (e.payload != null) {
            writeBytes(e.payload, out);
        }
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    @Override
    public Event deserialize(DataInputView in) throws IOException {
        Event e = new Event();
        int flags = in.readUnsignedByte();
        e.eventTime = in.readLong();
        e.id = (flags & ID_NULL) != 0 ? null : new String(readBytes(in), StandardCharsets.UTF_8);
        e.key = (flags & KEY_NULL) != 0 ? null : new String(readBytes(in), StandardCharsets.UTF_8);
        e.payload = (flags & PAYLOAD_NULL) != 0 ? null : readBytes(in);
        e.retraction = (flags & RETRACTION) != 0;
        return e;
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    @Override
    public Event deserialize(Event reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        int flags = in.readUnsignedByte();
        out.writeByte(flags);
        out.writeLong(in.readLong());
        for (int absent : new int[] {ID_NULL, KEY_NULL, PAYLOAD_NULL}) {
            if ((flags & absent) == 0) {
                writeBytes(readBytes(in), out);
            }
        }
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof EventSerializer;
    }

    @Override
    public int hashCode() {
        return EventSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<Event> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The format has no parameters. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Event> {
        public Snapshot() {
            super(EventSerializer::new);
        }
    }
}
