package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Kryo would silently halve throughput; the types on the wire must stay Flink POJOs. */
class PojoSerializationTest {

    @Test
    void shouldSerializeEventTypesAsPojosNotKryo() {
        SerializerConfigImpl noKryo = new SerializerConfigImpl();
        noKryo.setGenericTypes(false);
        for (Class<?> type :
                new Class<?>[] {DeadLetter.class, Parsed.class, Deduplicator.Kept.class}) {
            TypeInformation<?> info = TypeInformation.of(type);
            assertThat(info).as(type.getSimpleName()).isInstanceOf(PojoTypeInfo.class);
            assertThat(info.createSerializer(noKryo))
                    .as(type.getSimpleName())
                    .isInstanceOf(PojoSerializer.class);
        }
    }

    @Test
    void shouldSerializeEventsWithTheirOwnSerializerNotKryo() throws Exception {
        SerializerConfigImpl noKryo = new SerializerConfigImpl();
        noKryo.setGenericTypes(false);
        TypeInformation<Event> info = TypeInformation.of(Event.class);
        assertThat(info).isInstanceOf(EventTypeInfo.class);
        TypeSerializer<Event> serializer = info.createSerializer(noKryo);
        assertThat(serializer).isInstanceOf(EventSerializer.class);
        Event plain = new Event("id-\u00e9", "k", 1_763_899_200_123L, new byte[] {1, 2, 3});
        Event retraction = Event.retraction("id", "key", -5L);
        Event empty = new Event();
        for (Event e : List.of(plain, retraction, empty)) {
            DataOutputSerializer out = new DataOutputSerializer(8);
            serializer.serialize(e, out);
            Event back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
            assertThat(back).isEqualTo(e);
            assertThat(back.retraction).isEqualTo(e.retraction);
            DataOutputSerializer copied = new DataOutputSerializer(8);
            serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
        }
    }
}
