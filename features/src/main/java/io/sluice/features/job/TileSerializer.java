package io.sluice.features.job;

import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink state serializer of a fine tile, in {@link TileCodec}'s format: the state keeps {@link
 * Tile} objects, so adding an event to a tile in heap state costs no decoding or encoding.
 */
public final class TileSerializer extends TypeSerializer<Tile> {

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Tile> duplicate() {
        return this; // stateless
    }

    @Override
    public Tile createInstance() {
        return new Tile(0);
    }

    @Override
    public Tile copy(Tile from) {
        return from.copy();
    }

    @Override
    public Tile copy(Tile from, Tile reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Tile tile, DataOutputView target) throws IOException {
        byte[] bytes = TileCodec.encodeFine(tile);
        target.writeLong(tile.start());
        target.writeInt(bytes.length);
        target.write(bytes);
    }

    @Override
    public Tile deserialize(DataInputView source) throws IOException {
        long start = source.readLong();
        byte[] bytes = new byte[source.readInt()];
        source.readFully(bytes);
        return TileCodec.decodeFine(start, bytes);
    }

    @Override
    public Tile deserialize(Tile reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.writeLong(source.readLong());
        int length = source.readInt();
        target.writeInt(length);
        target.write(source, length);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof TileSerializer;
    }

    @Override
    public int hashCode() {
        return TileSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<Tile> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: any version restores with a new instance. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Tile> {
        public Snapshot() {
            super(TileSerializer::new);
        }
    }
}
