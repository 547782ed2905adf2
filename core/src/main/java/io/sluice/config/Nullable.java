package io.sluice.config;

import org.apache.avro.Schema;

/** Avro's optional value, a union of {@code null} and one type, seen through to that type. */
public final class Nullable {
    private Nullable() {}

    /**
     * {@code T} for a union whose one branch other than {@code null} is {@code T} (a union of
     * {@code null} and {@code T}, in either order); the schema itself otherwise: a type that is not
     * a union, or a union of several types, which is no one type.
     */
    public static Schema valueType(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        // A loop, not a stream: the JSON decoder asks this for every field of every record.
        Schema only = null;
        for (Schema branch : schema.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                if (only != null) {
                    return schema;
                }
                only = branch;
            }
        }
        return only == null ? schema : only;
    }
}
