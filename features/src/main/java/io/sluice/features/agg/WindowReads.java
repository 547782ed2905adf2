package io.sluice.features.agg;

import io.sluice.features.agg.Windows.TileReader;

/**
 * How a window is read from an entity's tiles: the merge of the tiles of its {@link Windows.Cover}
 * (coarse, then mid, then fine, then the head), the value a feature takes from it, and whether the
 * entity is known at the window's time at all.
 */
public final class WindowReads {

    private WindowReads() {}

    /**
     * {@code value(feature, e, t)} for the entity whose tiles {@code reader} reads, at the {@code
     * t} that {@code cover} was planned for ({@link Windows#cover(FeatureDef, long, long, long)}):
     * its coarse tiles, then its mid tiles, then its fine tiles, then its head, merged in that
     * order.
     */
    public static FeatureValue value(FeatureDef feature, Windows.Cover cover, TileReader reader) {
        return partial(feature, cover, reader).value(feature);
    }

    /**
     * The partial that {@link #value(FeatureDef, Windows.Cover, TileReader)} takes its value from:
     * the merge of {@code cover}'s tiles. Features of one {@link FeatureDef#partialKey() partial
     * key} and one cover merge the same partial, so a reader of many such features can merge it
     * once.
     */
    public static Partial partial(FeatureDef feature, Windows.Cover cover, TileReader reader) {
        Partial total = new Partial();
        long tile = cover.tileSize();
        for (long s :
                reader.coarseStarts(cover.coarseFrom(), cover.coarseTo(), cover.coarseSize())) {
            total.merge(reader.coarse(s, feature));
        }
        for (long s : reader.midStarts(cover.midFrom(), cover.coarseFrom(), cover.midSize())) {
            total.merge(reader.mid(s, feature));
        }
        for (long s : reader.midStarts(cover.coarseTo(), cover.midTo(), cover.midSize())) {
            total.merge(reader.mid(s, feature));
        }
        for (long s : reader.fineStarts(cover.from(), cover.midFrom(), tile)) {
            total.merge(reader.fine(s, feature));
        }
        for (long s : reader.fineStarts(cover.midTo(), cover.to(), tile)) {
            total.merge(reader.fine(s, feature));
        }
        if (cover.hasHead()) {
            total.merge(reader.head(cover.headStart(), cover.headEnd(), feature));
        }
        return total;
    }

    /**
     * Whether the entity whose tiles {@code reader} reads is known at {@code t}: it has an event in
     * the view's retention before {@code t} ({@link ViewDef#presence()}). An unknown entity's
     * features are {@link Status#NOT_FOUND}.
     */
    public static boolean present(ViewDef view, long t, TileReader reader) {
        return present(view, t, t, reader);
    }

    /**
     * {@link #present(ViewDef, long, TileReader)} at a {@code t} between whole milliseconds, given
     * by its ends {@code tail = floor_ms(t)} and {@code headEnd = ceil_ms(t)}: an event in {@code
     * floor_s(tail) − ttl ≤ x.ts < headEnd}.
     */
    public static boolean present(ViewDef view, long tail, long headEnd, TileReader reader) {
        FeatureDef presence = view.presence();
        return present(
                view,
                partial(
                        presence,
                        Windows.cover(
                                presence, tail, headEnd, view.tileMillis(), view.coarseMillis()),
                        reader));
    }

    /**
     * Whether an entity is known given {@code presence}, the partial of {@code view}'s {@link
     * ViewDef#presence()} over its cover at a time: whether it counts an event.
     */
    public static boolean present(ViewDef view, Partial presence) {
        return ((Number) presence.value(view.presence()).value()).longValue() > 0;
    }

    /** What every feature of an unknown entity is. */
    public static FeatureValue notFound() {
        return new FeatureValue(null, Status.NOT_FOUND, -1);
    }

    /**
     * {@code value(feature, e, t)}: {@link #value(FeatureDef, Windows.Cover, TileReader)} of its
     * cover.
     */
    public static FeatureValue value(
            FeatureDef feature, long t, long tile, long coarse, TileReader reader) {
        return value(feature, Windows.cover(feature, t, tile, coarse), reader);
    }

    /**
     * {@code value(feature, e, t)} at a {@code t} between whole milliseconds, given by its ends
     * {@code tail = floor_ms(t)} and {@code headEnd = ceil_ms(t)}: {@link #value(FeatureDef,
     * Windows.Cover, TileReader)} of {@link Windows#cover(FeatureDef, long, long, long, long)}.
     */
    public static FeatureValue value(
            FeatureDef feature,
            long tail,
            long headEnd,
            long tile,
            long coarse,
            TileReader reader) {
        return value(feature, Windows.cover(feature, tail, headEnd, tile, coarse), reader);
    }
}
