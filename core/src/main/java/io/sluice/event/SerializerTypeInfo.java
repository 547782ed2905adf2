package io.sluice.event;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * A Flink type with one serializer of Sluice's own and no fields Flink looks into: the rest of
 * {@link TypeInformation}'s contract is the same for every such type. Instances are equal when they
 * are of the same class.
 */
abstract class SerializerTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final boolean keyType;
    private final String name;
    private final SerializableSupplier<TypeSerializer<T>> serializer;

    SerializerTypeInfo(
            Class<T> type,
            boolean keyType,
            String name,
            SerializableSupplier<TypeSerializer<T>> serializer) {
        this.type = type;
        this.keyType = keyType;
        this.name = name;
        this.serializer = serializer;
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
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return keyType;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.get();
    }

    @Override
    public String toString() {
        return name;
    }

    @Override
    public boolean equals(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }
}
