package io.sluice.event;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** {@link Event}'s type for Flink: serialized by {@link EventSerializer}, never Kryo. */
public final class EventTypeInfo extends SerializerTypeInfo<Event> {

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

    private EventTypeInfo() {
        super(Event.class, false, "Event", EventSerializer::new);
    }
}
