package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.junit.jupiter.api.Test;

/** Kryo would silently halve throughput; the types on the wire must stay Flink POJOs. */
class PojoSerializationTest {

    @Test
    void shouldSerializeEventTypesAsPojosNotKryo() {
        SerializerConfigImpl noKryo = new SerializerConfigImpl();
        noKryo.setGenericTypes(false);
        for (Class<?> type :
                new Class<?>[] {
                    Event.class, DeadLetter.class, Parsed.class, Deduplicator.Kept.class
                }) {
            TypeInformation<?> info = TypeInformation.of(type);
            assertThat(info).as(type.getSimpleName()).isInstanceOf(PojoTypeInfo.class);
            assertThat(info.createSerializer(noKryo))
                    .as(type.getSimpleName())
                    .isInstanceOf(PojoSerializer.class);
        }
    }
}
