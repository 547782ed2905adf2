package io.sluice.features.job;

import io.sluice.event.Event;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.log.FeatureLog;
import io.sluice.features.online.OnlineStore;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.OutputTag;

/**
 * The current entity's tiles that one drain reads and changes, each read from state on first use
 * and, if changed, written back with its raised version and marked to publish at the end.
 */
final class TileBatch {
    private final ViewDef view;
    private final TileState state;
    private final OutputTag<GenericRecord> log;
    private final Schema logSchema;
    private final KeyedProcessFunction<String, Event, TileUpdate>.Context ctx;
    private final Map<Long, Tile> tiles = new HashMap<>();
    private final Map<Long, Long> fineVersionsChanged = new HashMap<>();
    private final Map<Long, Long> fineNewest = new HashMap<>();
    private final List<Map<Long, Map<String, Partial>>> partials =
            List.of(new HashMap<>(), new HashMap<>());
    private final List<Map<Long, Long>> partialVersions = List.of(new HashMap<>(), new HashMap<>());
    private final List<Map<Long, Long>> partialNewest = List.of(new HashMap<>(), new HashMap<>());
    private final List<Map<Long, byte[]>> encoded = List.of(new HashMap<>(), new HashMap<>());

    TileBatch(
            ViewDef view,
            TileState state,
            OutputTag<GenericRecord> log,
            Schema logSchema,
            KeyedProcessFunction<String, Event, TileUpdate>.Context ctx) {
        this.view = view;
        this.state = state;
        this.log = log;
        this.logSchema = logSchema;
        this.ctx = ctx;
    }

    /** The fine tile at {@code start}, or null if there is none. */
    Tile tile(long start) throws Exception {
        if (tiles.containsKey(start)) {
            return tiles.get(start);
        }
        Tile tile = state.fine.get(start);
        tiles.put(start, tile);
        return tile;
    }

    Tile newTile(long start) {
        Tile tile = new Tile(start);
        tiles.put(start, tile);
        return tile;
    }

    /**
     * Raises a changed fine tile's version and marks it to publish; a tile that existed and has
     * ended already was logged, so its new state is logged again.
     */
    void fineChanged(Tile tile, long sizeBefore, boolean existed, long eventTime, long watermark)
            throws Exception {
        long start = tile.start();
        Long version = fineVersionsChanged.get(start);
        if (version == null) {
            version = state.fineVersions.get(start);
        }
        long raised = (version == null ? sizeBefore : version) + 1;
        fineVersionsChanged.put(start, raised);
        if (existed && start + view.tileMillis() <= watermark && log != null) {
            ctx.output(log, FeatureLog.row(logSchema, view, ctx.getCurrentKey(), tile, raised));
        }
        fineNewest.merge(start, eventTime, Math::max);
    }

    /** The partials of the mid or coarse tile at {@code start}, empty if there are none. */
    Map<String, Partial> partials(OnlineStore.Level level, long start) throws Exception {
        Map<Long, Map<String, Partial>> read = partials.get(TileState.slot(level));
        Map<String, Partial> found = read.get(start);
        if (found == null) {
            byte[] stored = state.partials(level).get(start);
            found = stored == null ? new LinkedHashMap<>() : TileCodec.decodeCoarse(stored);
            read.put(start, found);
        }
        return found;
    }

    /** Keeps a mid or coarse tile's new partials and raises its version. */
    void partialsChanged(
            OnlineStore.Level level, long start, Map<String, Partial> changed, long eventTime)
            throws Exception {
        int i = TileState.slot(level);
        partials.get(i).put(start, changed);
        Long version = partialVersions.get(i).get(start);
        if (version == null) {
            version = state.versions(level).get(start);
        }
        partialVersions.get(i).put(start, version == null ? 1 : version + 1);
        partialNewest.get(i).merge(start, eventTime, Math::max);
    }

    /**
     * Stores every changed tile with its version. With {@code markPending} each is also marked to
     * publish; without, the caller publishes them at once from this batch ({@link #fineChanges},
     * {@link #partialChanges}), in the same timer callback, so no checkpoint can fall between the
     * store and the publish and the marks would only be written to be read back.
     */
    void writeBack(boolean markPending) throws Exception {
        for (Map.Entry<Long, Long> e : fineNewest.entrySet()) {
            long start = e.getKey();
            state.fine.put(start, tiles.get(start));
            state.fineVersions.put(start, fineVersionsChanged.get(start));
            if (markPending) {
                state.pending.fine(start, e.getValue());
            }
        }
        for (OnlineStore.Level level : TileState.PARTIALS) {
            int i = TileState.slot(level);
            for (Map.Entry<Long, Long> e : partialNewest.get(i).entrySet()) {
                long start = e.getKey();
                byte[] bytes = TileCodec.encodeCoarse(partials.get(i).get(start));
                encoded.get(i).put(start, bytes);
                state.partials(level).put(start, bytes);
                state.versions(level).put(start, partialVersions.get(i).get(start));
                if (markPending) {
                    state.pending.partials(level, start, e.getValue());
                }
            }
        }
    }

    /** The changed fine tiles: start → newest event time among the changes. */
    Map<Long, Long> fineChanges() {
        return fineNewest;
    }

    /** The changed fine tile at {@code start}, as stored. */
    Tile changedTile(long start) {
        return tiles.get(start);
    }

    /** The stored version of the changed fine tile at {@code start}. */
    long fineVersion(long start) {
        return fineVersionsChanged.get(start);
    }

    /** The changed mid or coarse tiles: start → newest event time among the changes. */
    Map<Long, Long> partialChanges(OnlineStore.Level level) {
        return partialNewest.get(TileState.slot(level));
    }

    /** The stored bytes of the changed mid or coarse tile at {@code start}. */
    byte[] partialsBytes(OnlineStore.Level level, long start) {
        return encoded.get(TileState.slot(level)).get(start);
    }

    /** The stored version of the changed mid or coarse tile at {@code start}. */
    long partialsVersion(OnlineStore.Level level, long start) {
        return partialVersions.get(TileState.slot(level)).get(start);
    }
}
