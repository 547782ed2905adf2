package io.sluice.features.job;

import io.sluice.features.agg.Tile;
import io.sluice.features.online.OnlineStore;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

/**
 * {@link TileAggregator}'s keyed state of one entity: its fine tiles, the mid and coarse tiles'
 * encoded partials, each tile's version, and the tiles waiting to be published (state names as
 * savepoints hold them).
 */
final class TileState {

    /** The levels of tiles that keep partials over fine tiles. */
    static final OnlineStore.Level[] PARTIALS = {OnlineStore.Level.COARSE, OnlineStore.Level.MID};

    final MapState<Long, Tile> fine;
    final MapState<Long, Long> fineVersions;
    final MapState<Long, byte[]> coarse;
    final MapState<Long, Long> coarseVersions;
    final MapState<Long, byte[]> mid;
    final MapState<Long, Long> midVersions;
    final PendingTiles pending;

    TileState(RuntimeContext rc) {
        fine =
                rc.getMapState(
                        new MapStateDescriptor<>(
                                "fine-tiles", LongSerializer.INSTANCE, new TileSerializer()));
        coarse =
                rc.getMapState(
                        new MapStateDescriptor<>(
                                "coarse",
                                Types.LONG,
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        coarseVersions =
                rc.getMapState(new MapStateDescriptor<>("coarse-version", Types.LONG, Types.LONG));
        fineVersions =
                rc.getMapState(new MapStateDescriptor<>("fine-version", Types.LONG, Types.LONG));
        mid =
                rc.getMapState(
                        new MapStateDescriptor<>(
                                "mid",
                                Types.LONG,
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        midVersions =
                rc.getMapState(new MapStateDescriptor<>("mid-version", Types.LONG, Types.LONG));
        pending = new PendingTiles(rc);
    }

    MapState<Long, byte[]> partials(OnlineStore.Level level) {
        return level == OnlineStore.Level.COARSE ? coarse : mid;
    }

    MapState<Long, Long> versions(OnlineStore.Level level) {
        return level == OnlineStore.Level.COARSE ? coarseVersions : midVersions;
    }

    /** A partials level's place in per-level lists. */
    static int slot(OnlineStore.Level level) {
        return level == OnlineStore.Level.COARSE ? 0 : 1;
    }
}
