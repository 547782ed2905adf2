package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The de-duplication key's serializer must stay byte-compatible with Flink's own for strings. */
class StateKeySerializerTest {

    private static final List<String> KEYS =
            List.of(
                    "",
                    "a",
                    "3f2b8c1e-0d4a-4b7e-9a51-7c2d1e6f8a90@1763899200000",
                    "caf\u00e9 \u20ac \ud83d\ude00 \u0000 end",
                    "x".repeat(70_000));

    @Test
    void shouldWriteTheSameBytesAsFlinksStringSerializer() throws Exception {
        TypeSerializer<String> ours = new StateKeySerializer();
        for (String key : KEYS) {
            DataOutputSerializer a = new DataOutputSerializer(16);
            DataOutputSerializer b = new DataOutputSerializer(16);
            ours.serialize(key, a);
            StringSerializer.INSTANCE.serialize(key, b);
            assertThat(a.getCopyOfBuffer()).isEqualTo(b.getCopyOfBuffer());
            assertThat(ours.deserialize(new DataInputDeserializer(b.getCopyOfBuffer())))
                    .isEqualTo(key);
        }
    }

    @Test
    void shouldMatchFlinksBytesForRandomText() throws Exception {
        long seed = System.nanoTime();
        java.util.Random random = new java.util.Random(seed);
        TypeSerializer<String> ours = new StateKeySerializer();
        for (int i = 0; i < 2_000; i++) {
            char[] chars = new char[random.nextInt(300)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = (char) (random.nextBoolean() ? random.nextInt(128) : random.nextInt());
            }
            String key = new String(chars);
            DataOutputSerializer a = new DataOutputSerializer(16);
            DataOutputSerializer b = new DataOutputSerializer(16);
            ours.serialize(key, a);
            StringSerializer.INSTANCE.serialize(key, b);
            assertThat(a.getCopyOfBuffer()).as("seed %d", seed).isEqualTo(b.getCopyOfBuffer());
        }
    }

    @Test
    void shouldRestoreStateWrittenWithEitherSerializer() {
        TypeSerializerSnapshot<String> snapshot =
                StateKeyTypeInfo.INSTANCE
                        .createSerializer(new SerializerConfigImpl())
                        .snapshotConfiguration();
        TypeSerializerSchemaCompatibility<String> fromStrings =
                snapshot.resolveSchemaCompatibility(
                        StringSerializer.INSTANCE.snapshotConfiguration());
        TypeSerializerSchemaCompatibility<String> fromOurs =
                snapshot.resolveSchemaCompatibility(new StateKeySerializer.Snapshot());
        assertThat(fromStrings.isCompatibleAsIs()).isTrue();
        assertThat(fromOurs.isCompatibleAsIs()).isTrue();
    }

    @Test
    void shouldGiveEachDuplicateItsOwnBuffer() {
        StateKeySerializer s = new StateKeySerializer();
        assertThat(s.duplicate()).isNotSameAs(s).isEqualTo(s);
    }
}
