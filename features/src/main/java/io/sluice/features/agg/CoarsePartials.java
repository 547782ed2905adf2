package io.sluice.features.agg;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one place a coarse tile's partials are built: one partial per partial key of the view's
 * features ({@link FeatureDef#partialKey()}) over the fine tiles the coarse tile spans, merged in
 * ascending order of start. The features job adds to them event by event ({@link #add}), and
 * everything else (retractions, store writes, in-memory readers) rebuilds them from the fine tiles
 * ({@link #of}); both give the same partial, since partials are mergeable in any grouping.
 */
public final class CoarsePartials {

    private CoarsePartials() {}

    /** {@code feature}'s partial over {@code fine}, tiles in ascending order of start. */
    public static Partial of(FeatureDef feature, Iterable<Tile> fine) {
        Partial p = new Partial();
        for (Tile t : fine) {
            p.merge(t.partial(feature));
        }
        return p;
    }

    /**
     * The view's partials over {@code fine}, one per {@link FeatureDef#partialKey() partial key}
     * (which the view's presence count shares with its count features).
     */
    public static Map<String, Partial> of(ViewDef view, Iterable<Tile> fine) {
        Map<String, Partial> partials = new LinkedHashMap<>();
        for (FeatureDef f : view.partials()) {
            partials.put(f.partialKey(), of(f, fine));
        }
        return partials;
    }

    /** Adds an event that joined one of the coarse tile's fine tiles to its partials, in place. */
    public static void add(ViewDef view, Map<String, Partial> partials, EventEntry event) {
        for (FeatureDef f : view.partials()) {
            partials.computeIfAbsent(f.partialKey(), n -> new Partial()).add(f, event);
        }
    }
}
