package io.sluice.features.agg;

import io.sluice.config.Aggregation;
import io.sluice.config.FeatureType;
import java.io.Serializable;
import org.apache.avro.Schema;

/**
 * A feature as the aggregation library sees it.
 *
 * @param name the feature name
 * @param agg its aggregation
 * @param valueIndex index of its source field in an {@link EventEntry}'s values; -1 for count
 * @param windowMillis its window W (the view's ttl for {@code last} without a window)
 * @param type the declared output type
 * @param fractional whether the source field is float or double (sums and averages in double)
 */
public record FeatureDef(
        String name,
        Aggregation agg,
        int valueIndex,
        long windowMillis,
        FeatureType type,
        boolean fractional)
        implements Serializable {

    /**
     * The key of its partial in a coarse tile. Features that add an event alike share one: every
     * count (and the view's {@link ViewDef#presence() presence}) counts events; every other
     * aggregation of one field keeps the same count, sums, min, max and last of its non-null
     * values. So a coarse tile keeps one partial per key, not per feature: a view of 50 windows
     * over two fields keeps two.
     */
    public String partialKey() {
        if (agg == Aggregation.COUNT) {
            return ViewDef.PRESENCE;
        }
        // Asked for on every tile of every window a read merges: built once per field index.
        return valueIndex < FIELD_KEYS.length ? FIELD_KEYS[valueIndex] : "#" + valueIndex;
    }

    private static final String[] FIELD_KEYS = new String[64];

    static {
        for (int i = 0; i < FIELD_KEYS.length; i++) {
            FIELD_KEYS[i] = "#" + i;
        }
    }

    /** The Avro (and so Parquet) type of its values, narrowest as declared: float stays float. */
    public Schema valueSchema() {
        return Schema.create(
                switch (type) {
                    case INT -> Schema.Type.INT;
                    case LONG -> Schema.Type.LONG;
                    case FLOAT -> Schema.Type.FLOAT;
                    case DOUBLE -> Schema.Type.DOUBLE;
                    case STRING -> Schema.Type.STRING;
                });
    }
}
