package io.sluice.event;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** {@link Event}'s type for Flink: serialized by {@link EventSerializer}, never Kryo. */
public final class EventTypeInfo extends TypeInformation<Event> {

    private static final long serialVersionUID = 1L;

    public static final EventTypeInfo INSTANCE = new EventTypeInfo();

    /** Flink's hook from the {@code @TypeInfo} annotation on {@link Event}. */
    public static final class Factory extends TypeInfoFactory<Event> {
        @Override
        public TypeInformation<Event> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<Event> getTypeClass() {
        return Event.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<Event> createSerializer(SerializerConfig config) {
        return new EventSerializer();
    }

    @Override
    public String toString() {
        return "Event";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof EventTypeInfo;
    }

    @Override
    public int hashCode() {
        return EventTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof EventTypeInfo;
    }
}
