package io.sluice.event;

/**
 * String keys of keyed state, serialized by {@link StateKeySerializer}: the same bytes as Flink's
 * string type, written in one call per key. Used for the de-duplication key.
 */
public final class StateKeyTypeInfo extends SerializerTypeInfo<String> {

    private static final long serialVersionUID = 1L;

    public static final StateKeyTypeInfo INSTANCE = new StateKeyTypeInfo();

    private StateKeyTypeInfo() {
        super(String.class, true, "StateKey<String>", StateKeySerializer::new);
    }
}
