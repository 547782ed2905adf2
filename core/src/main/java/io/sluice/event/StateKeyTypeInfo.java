package io.sluice.event;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * String keys of keyed state, serialized by {@link StateKeySerializer}: the same bytes as Flink's
 * string type, written in one call per key. Used for the de-duplication key.
 */
public final class StateKeyTypeInfo extends TypeInformation<String> {

    private static final long serialVersionUID = 1L;

    public static final StateKeyTypeInfo INSTANCE = new StateKeyTypeInfo();

    private StateKeyTypeInfo() {}

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
    public Class<String> getTypeClass() {
        return String.class;
    }

    @Override
    public boolean isKeyType() {
        return true;
    }

    @Override
    public TypeSerializer<String> createSerializer(SerializerConfig config) {
        return new StateKeySerializer();
    }

    @Override
    public String toString() {
        return "StateKey<String>";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof StateKeyTypeInfo;
    }

    @Override
    public int hashCode() {
        return StateKeyTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof StateKeyTypeInfo;
    }
}
