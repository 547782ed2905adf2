package io.sluice.features.agg;

import io.sluice.config.Aggregation;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureType;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.Nullable;
import io.sluice.config.TableConfig;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * A feature view as the library sees it: its tiles, and its features over the distinct source
 * fields they read.
 *
 * @param name the view name
 * @param tileMillis the fine tile size s
 * @param coarseMillis the coarse tile size, 60 × s, for the body of long windows
 * @param ttlMillis how long values are kept
 * @param fields the source fields the features read, in first-use order
 * @param features the features, in config order
 * @param partials one feature per {@link FeatureDef#partialKey() partial key} of the features and
 *     the presence count: what a coarse tile keeps
 */
public record ViewDef(
        String name,
        long tileMillis,
        long coarseMillis,
        long ttlMillis,
        List<String> fields,
        List<FeatureDef> features,
        List<FeatureDef> partials)
        implements Serializable {

    public ViewDef(
            String name,
            long tileMillis,
            long coarseMillis,
            long ttlMillis,
            List<String> fields,
            List<FeatureDef> features) {
        this(
                name,
                tileMillis,
                coarseMillis,
                ttlMillis,
                fields,
                features,
                partials(features, presence(ttlMillis)));
    }

    private static List<FeatureDef> partials(List<FeatureDef> features, FeatureDef presence) {
        java.util.Map<String, FeatureDef> byKey = new java.util.LinkedHashMap<>();
        byKey.put(presence.partialKey(), presence);
        for (FeatureDef f : features) {
            byKey.putIfAbsent(f.partialKey(), f);
        }
        return List.copyOf(byKey.values());
    }

    /**
     * The mid tile size, between the fine and the coarse ones, for the edges of long windows
     * ({@link Windows#midSize}): 6 × s for the coarse tiles of 60 × s.
     */
    public long midMillis() {
        return Windows.midSize(tileMillis, coarseMillis);
    }

    /** How many fine tiles make one coarse tile. */
    public static final int COARSE_FACTOR = 60;

    /** The library's view of {@code view}, whose source table is {@code table}. */
    public static ViewDef of(FeatureViewConfig view, TableConfig table) {
        List<String> fields = new ArrayList<>();
        List<FeatureDef> features = new ArrayList<>();
        for (FeatureConfig f : view.features()) {
            int index = -1;
            boolean fractional = false;
            if (f.agg() != Aggregation.COUNT) {
                String field = f.field().orElseThrow();
                index = fields.indexOf(field);
                if (index < 0) {
                    fields.add(field);
                    index = fields.size() - 1;
                }
                Schema.Type type =
                        Nullable.valueType(table.schema().getField(field).schema()).getType();
                fractional = type == Schema.Type.FLOAT || type == Schema.Type.DOUBLE;
            }
            features.add(
                    new FeatureDef(
                            f.name(),
                            f.agg(),
                            index,
                            f.effectiveWindow().toMillis(),
                            f.type(),
                            fractional));
        }
        long tile = view.tile().toMillis();
        return new ViewDef(
                view.name(),
                tile,
                tile * COARSE_FACTOR,
                view.ttl().toMillis(),
                List.copyOf(fields),
                List.copyOf(features));
    }

    /**
     * The name under which coarse tiles keep {@link #presence()}'s partial; {@code #} cannot start
     * a configured feature's name.
     */
    public static final String PRESENCE = "#events";

    /**
     * The hidden feature that says whether an entity is known at {@code t}: the count of its events
     * in the view's retention, {@code floor_s(t) − ttl ≤ x.ts < t}. Zero means {@link
     * Status#NOT_FOUND}. Coarse tiles keep its partial like any feature's ({@link CoarsePartials}),
     * so a store reader and an in-memory one evaluate it with the same window code.
     */
    public FeatureDef presence() {
        return presence(ttlMillis);
    }

    private static FeatureDef presence(long ttlMillis) {
        return new FeatureDef(PRESENCE, Aggregation.COUNT, -1, ttlMillis, FeatureType.LONG, false);
    }

    /** The feature called {@code name}, or null. */
    public FeatureDef feature(String name) {
        for (FeatureDef f : features) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** An accepted event of the source table as tiles keep it. */
    public EventEntry entry(GenericRecord record, String id, long ts) {
        Object[] values = new Object[fields.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = Values.normalise(record.get(fields.get(i)));
        }
        return new EventEntry(ts, id, values);
    }
}
