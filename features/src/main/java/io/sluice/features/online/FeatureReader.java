package io.sluice.features.online;

import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Reads feature vectors from an online store: plans the tiles each requested window needs (coarse
 * for the body, fine at the edges and the head), fetches all of them for all entities in one batch,
 * and evaluates each value with the shared library ({@link Windows}). The same code serves every
 * store, so Redis and SQLite cannot disagree.
 */
public final class FeatureReader {

    /** A requested feature, written {@code view:feature}. */
    public record FeatureRef(String view, String feature) {
        /** Parses {@code view:feature}. */
        public static FeatureRef parse(String text) {
            int colon = text.indexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new IllegalArgumentException(
                        "'" + text + "' is not a feature reference like user_purchases:spend_24h");
            }
            return new FeatureRef(text.substring(0, colon), text.substring(colon + 1));
        }

        @Override
        public String toString() {
            return view + ":" + feature;
        }
    }

    /** One entity's values, in the order the features were requested. */
    public record Vector(String entity, List<FeatureValue> values) {}

    private final OnlineStore store;
    private final List<ViewDef> views;
    private final LongSupplier clock;

    public FeatureReader(OnlineStore store, List<ViewDef> views, LongSupplier clock) {
        this.store = store;
        this.views = List.copyOf(views);
        this.clock = clock;
    }

    /**
     * The requested features of each entity at {@code at} (epoch millis).
     *
     * @throws IllegalArgumentException naming an unknown view or feature
     */
    public List<Vector> read(List<FeatureRef> features, List<String> entities, long at)
            throws IOException {
        List<ViewDef> viewOf = new ArrayList<>();
        List<FeatureDef> defs = new ArrayList<>();
        for (FeatureRefs.Resolved r : FeatureRefs.resolve(views, features)) {
            viewOf.add(r.view());
            defs.add(r.feature());
        }
        long now = clock.getAsLong();
        // One cover per feature: the same object plans the fetch and is evaluated.
        List<Windows.Cover> covers = new ArrayList<>(defs.size());
        for (int i = 0; i < defs.size(); i++) {
            ViewDef view = viewOf.get(i);
            covers.add(
                    inRetention(view, at, now)
                            ? Windows.cover(defs.get(i), at, view.tileMillis(), view.coarseMillis())
                            : null);
        }
        Set<OnlineStore.TileKey> keys = new LinkedHashSet<>();
        for (String entity : entities) {
            for (int i = 0; i < defs.size(); i++) {
                if (covers.get(i) != null) {
                    keys.addAll(tileKeys(viewOf.get(i).name(), entity, covers.get(i)));
                }
            }
        }
        Map<OnlineStore.TileKey, byte[]> fetched = store.read(new ArrayList<>(keys), now);
        List<Vector> vectors = new ArrayList<>(entities.size());
        for (String entity : entities) {
            Fetched reader = new Fetched(fetched, entity);
            List<FeatureValue> values = new ArrayList<>(defs.size());
            for (int i = 0; i < defs.size(); i++) {
                if (covers.get(i) == null) {
                    values.add(new FeatureValue(null, Status.OUT_OF_RETENTION, -1));
                    continue;
                }
                reader.view = viewOf.get(i);
                values.add(Windows.value(defs.get(i), covers.get(i), reader));
            }
            vectors.add(new Vector(entity, values));
        }
        return vectors;
    }

    private static boolean inRetention(ViewDef view, long at, long now) {
        return at >= now - view.ttlMillis();
    }

    /** The store keys of the tiles {@code cover} reads for {@code entity}. */
    static List<OnlineStore.TileKey> tileKeys(String view, String entity, Windows.Cover cover) {
        List<OnlineStore.TileKey> keys = new ArrayList<>();
        for (long s : cover.coarse()) {
            keys.add(new OnlineStore.TileKey(view, entity, OnlineStore.Level.COARSE, s));
        }
        for (long s : cover.fine()) {
            keys.add(new OnlineStore.TileKey(view, entity, OnlineStore.Level.FINE, s));
        }
        if (cover.hasHead()) {
            keys.add(
                    new OnlineStore.TileKey(
                            view, entity, OnlineStore.Level.FINE, cover.headStart()));
        }
        return keys;
    }

    /** Fetched tiles of one entity, decoded once each. */
    private static final class Fetched implements Windows.TileReader {
        private final Map<OnlineStore.TileKey, byte[]> payloads;
        private final String entity;
        private final Map<OnlineStore.TileKey, Tile> fine = new HashMap<>();
        private final Map<OnlineStore.TileKey, Map<String, Partial>> coarse = new HashMap<>();
        ViewDef view;

        Fetched(Map<OnlineStore.TileKey, byte[]> payloads, String entity) {
            this.payloads = payloads;
            this.entity = entity;
        }

        private Tile fineTile(long start) {
            OnlineStore.TileKey key =
                    new OnlineStore.TileKey(view.name(), entity, OnlineStore.Level.FINE, start);
            return fine.computeIfAbsent(
                    key,
                    k -> {
                        byte[] p = payloads.get(k);
                        return p == null ? new Tile(start) : TileCodec.decodeFine(start, p);
                    });
        }

        @Override
        public Partial fine(long start, FeatureDef feature) {
            return fineTile(start).partial(feature);
        }

        @Override
        public Partial coarse(long start, FeatureDef feature) {
            OnlineStore.TileKey key =
                    new OnlineStore.TileKey(view.name(), entity, OnlineStore.Level.COARSE, start);
            Map<String, Partial> partials =
                    coarse.computeIfAbsent(
                            key,
                            k -> {
                                byte[] p = payloads.get(k);
                                return p == null ? Map.of() : TileCodec.decodeCoarse(p);
                            });
            Partial p = partials.get(feature.name());
            // Windows only merge what a reader returns, so the decoded partial can be shared.
            return p == null ? new Partial() : p;
        }

        @Override
        public Partial head(long start, long before, FeatureDef feature) {
            return fineTile(start).partial(feature, before);
        }
    }
}
