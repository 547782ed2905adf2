package io.sluice.features.job;

import io.sluice.event.Event;
import io.sluice.features.agg.CoarsePartials;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.log.FeatureLog;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.TileWrites;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Keeps one entity's tiles of one view in Flink state and publishes the tiles events change: the
 * fine tile (its events) and the mid and coarse tiles above it (partials updated incrementally).
 * Keyed by the entity.
 *
 * <p>Changed tiles are published by a processing-time timer {@link #PUBLISH_DELAY_MILLIS} after the
 * first change, so an entity that receives many events in that time has each tile encoded and
 * written once, not once per event, or when the watermark passes the one they came under, whichever
 * is first: a watermark leaves this operator only after every tile of the events before it, which
 * is what the online sink's written-through mark relies on. Late events update their tiles for as
 * long as the tiles are retained; events older than that are counted and left out of the online
 * store (the lake still has them). Tiles are evicted by event-time timers at their expiry, so state
 * is bounded by the view's ttl; at a tile's end it goes to the feature log.
 *
 * <p>A {@linkplain Event#retraction retraction} (from the de-duplication, when a later-arriving
 * copy of an id wins under {@link io.sluice.event.DuplicateRule}) removes the superseded copy from
 * its fine tile, if that is still retained, and recomputes the mid and coarse tiles above it from
 * their fine tiles; both are re-published (and the fine tile re-logged if it was logged already),
 * and the winning copy follows as an ordinary event. Because a tile can shrink, every tile's online
 * version is a modification count kept in state beside it ({@code fine-version}, {@code
 * mid-version}, {@code coarse-version}): each change raises it by one, so the store's
 * compare-and-set takes every change and refuses only replays of older states. (A fine tile
 * restored from a checkpoint taken before that count existed starts from its size, which is what it
 * was published with.)
 */
public final class TileAggregator extends KeyedProcessFunction<String, Event, TileUpdate> {

    /** How long a changed tile may wait before it is published. */
    static final long PUBLISH_DELAY_MILLIS = 50;

    private final ViewDef view;
    private final String schemaJson;
    private final OutputTag<GenericRecord> log;

    private transient TileState state;

    /** Events (and retractions) not yet applied, in arrival order: see {@link #drain}. */
    private transient ListState<Event> buffer;

    /** The watermark the buffered events arrived under. */
    private transient ValueState<Long> bufferWatermark;

    private transient Schema logSchema;
    private transient GenericDatumReader<GenericRecord> reader;
    private transient BinaryDecoder decoder;
    private transient GenericRecord record;
    private transient Counter aggregated;
    private transient Counter tooLate;
    private transient Counter retracted;

    /**
     * @param log the side output for feature log rows, or null for none
     */
    public TileAggregator(ViewDef view, Schema schema, OutputTag<GenericRecord> log) {
        this.view = view;
        this.schemaJson = schema.toString();
        this.log = log;
    }

    @Override
    public void open(OpenContext context) {
        var rc = getRuntimeContext();
        state = new TileState(rc);
        buffer =
                rc.getListState(
                        new ListStateDescriptor<>(
                                "buffered-events", io.sluice.event.EventTypeInfo.INSTANCE));
        bufferWatermark = rc.getState(new ValueStateDescriptor<>("buffered-watermark", Types.LONG));
        reader = new GenericDatumReader<>(new Schema.Parser().parse(schemaJson));
        logSchema = FeatureLog.schema(view);
        aggregated = rc.getMetricGroup().counter("eventsAggregated");
        tooLate = rc.getMetricGroup().counter("eventsBeyondRetention");
        retracted = rc.getMetricGroup().counter("eventsRetracted");
    }

    @Override
    public void processElement(Event event, Context ctx, Collector<TileUpdate> out)
            throws Exception {
        long s = view.tileMillis();
        long start = Windows.floor(event.eventTime, s);
        long watermark = ctx.timerService().currentWatermark();
        if (TileWrites.expiry(view, start, s) <= watermark) {
            if (!event.retraction) {
                tooLate.inc();
            }
            return;
        }
        Long bufferedUnder = bufferWatermark.value();
        if (bufferedUnder != null && bufferedUnder != watermark) {
            // The buffer holds events that arrived under an earlier watermark: they are applied
            // as of that one, as if each had been applied when it came.
            drain(bufferedUnder, ctx, true);
        }
        if (!event.retraction && !state.fine.contains(start)) {
            // A new tile: at its end it is logged; at its expiry it and the partials above it
            // are evicted. (A tile that exists already has these timers, and so do its partials,
            // which outlive it.)
            ctx.timerService().registerEventTimeTimer(start + s);
            ctx.timerService().registerEventTimeTimer(TileWrites.expiry(view, start, s));
            for (OnlineStore.Level level : TileState.PARTIALS) {
                long size = TileWrites.size(view, level);
                long partialsStart = Windows.floor(start, size);
                if (!state.partials(level).contains(partialsStart)) {
                    ctx.timerService()
                            .registerEventTimeTimer(TileWrites.expiry(view, partialsStart, size));
                }
            }
        }
        buffer.add(event);
        if (bufferedUnder == null || bufferedUnder != watermark) {
            bufferWatermark.update(watermark);
            state.pending.schedule(ctx.timerService(), PUBLISH_DELAY_MILLIS);
            if (watermark != Long.MAX_VALUE) {
                // Or at the next watermark, whichever comes first: this key's tiles go out before
                // any later watermark does, which the online sink's written-through mark relies
                // on. (Registered on every new watermark, not with the publish timer: one
                // restored from a checkpoint would wait for the old run's watermark.)
                ctx.timerService().registerEventTimeTimer(watermark + 1);
            }
        } // else the buffer's first event scheduled the publish, which drains the buffer
    }

    /**
     * Applies the buffered events of the current entity, in arrival order, as of {@code watermark}
     * (the one they arrived under), then forgets them. Each tile they touch is read from state once
     * and written back once, however many events it takes: an entity's events come in bursts, and
     * most of an event's cost was reading and writing its tiles.
     *
     * @param markPending whether the changed tiles are marked to publish later; a drain that the
     *     publish follows at once passes false and hands the returned batch to {@link #publish}
     */
    private TileBatch drain(long watermark, Context ctx, boolean markPending) throws Exception {
        TileBatch batch = new TileBatch(view, state, log, logSchema, ctx);
        for (Event event : buffer.get()) {
            if (event.retraction) {
                retract(event, watermark, batch);
            } else {
                add(event, watermark, batch);
            }
        }
        batch.writeBack(markPending);
        buffer.clear();
        bufferWatermark.clear();
        return batch;
    }

    private void add(Event event, long watermark, TileBatch batch) throws Exception {
        long start = Windows.floor(event.eventTime, view.tileMillis());
        decoder = DecoderFactory.get().binaryDecoder(event.payload, decoder);
        record = reader.read(record, decoder);
        EventEntry entry = view.entry(record, event.id, event.eventTime);

        Tile tile = batch.tile(start);
        boolean created = tile == null;
        if (created) {
            tile = batch.newTile(start);
        }
        if (!tile.add(entry)) {
            return; // already here: a replayed id
        }
        aggregated.inc();
        batch.fineChanged(tile, tile.size() - 1, !created, event.eventTime, watermark);

        for (OnlineStore.Level level : TileState.PARTIALS) {
            long partialsStart = Windows.floor(start, TileWrites.size(view, level));
            Map<String, Partial> partials = batch.partials(level, partialsStart);
            CoarsePartials.add(view, partials, entry);
            batch.partialsChanged(level, partialsStart, partials, event.eventTime);
        }
    }

    /**
     * Removes a superseded copy from its fine tile and recomputes the coarse tile above it from the
     * fine tiles it covers. Fine tiles are evicted in order of start, so when the first fine tile
     * of the coarse one is gone some of its partials can no longer be recomputed; such a coarse
     * tile lies before the start of every window a read within retention asks for ({@link
     * TileWrites#expiry}), so it is recomputed from the fine tiles still there and never read.
     */
    private void retract(Event event, long watermark, TileBatch batch) throws Exception {
        long s = view.tileMillis();
        long start = Windows.floor(event.eventTime, s);
        Tile tile = batch.tile(start);
        if (tile == null || tile.remove(event.id) == null) {
            return; // the superseded copy never reached a tile (e.g. it was beyond retention)
        }
        retracted.inc();
        batch.fineChanged(tile, tile.size() + 1, true, event.eventTime, watermark);

        for (OnlineStore.Level level : TileState.PARTIALS) {
            long size = TileWrites.size(view, level);
            long partialsStart = Windows.floor(start, size);
            List<Tile> covered = new ArrayList<>();
            for (long f = partialsStart; f < partialsStart + size; f += s) {
                Tile t = batch.tile(f);
                if (t != null) {
                    covered.add(t);
                }
            }
            batch.partialsChanged(
                    level, partialsStart, CoarsePartials.of(view, covered), event.eventTime);
        }
    }

    private void log(String entity, Tile tile, Context ctx) throws Exception {
        if (log != null) {
            ctx.output(
                    log,
                    FeatureLog.row(logSchema, view, entity, tile, fineVersion(tile.start(), tile)));
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<TileUpdate> out)
            throws Exception {
        Long bufferedUnder = bufferWatermark.value();
        boolean publishing = ctx.timeDomain() == TimeDomain.PROCESSING_TIME;
        TileBatch drained = bufferedUnder == null ? null : drain(bufferedUnder, ctx, !publishing);
        if (publishing) {
            publish(ctx.getCurrentKey(), drained, out);
            return;
        }
        if (state.pending.scheduled()) {
            // The watermark has passed the one the waiting tiles' events came under: publish them
            // before it goes on downstream (processElement), and before anything below
            // evicts a tile that is still to be published.
            publish(ctx.getCurrentKey(), null, out);
        }
        // Event time: a tile's end (log it) or its expiry (evict it).
        Tile ended = state.fine.get(timestamp - view.tileMillis());
        if (ended != null && ended.size() > 0) {
            log(ctx.getCurrentKey(), ended, ctx);
        }
        // Most of these timers are a tile's end with nothing expiring: only a tile that is there
        // costs the removals.
        long fineStart = timestamp - view.tileMillis() - 2 * view.ttlMillis();
        boolean expires = state.fine.contains(fineStart);
        long[] partialsExpiring = new long[TileState.PARTIALS.length];
        for (OnlineStore.Level level : TileState.PARTIALS) {
            long size = TileWrites.size(view, level);
            long partialsStart = timestamp - size - 2 * view.ttlMillis();
            boolean aligned = Math.floorMod(partialsStart, size) == 0;
            partialsExpiring[TileState.slot(level)] =
                    aligned && state.partials(level).contains(partialsStart)
                            ? partialsStart
                            : Long.MIN_VALUE;
            expires |= partialsExpiring[TileState.slot(level)] != Long.MIN_VALUE;
        }
        if (!expires) {
            return;
        }
        state.fine.remove(fineStart);
        state.fineVersions.remove(fineStart);
        for (OnlineStore.Level level : TileState.PARTIALS) {
            long partialsStart = partialsExpiring[TileState.slot(level)];
            if (partialsStart != Long.MIN_VALUE) {
                state.partials(level).remove(partialsStart);
                state.versions(level).remove(partialsStart);
            }
        }
    }

    private long fineVersion(long start, Tile tile) throws Exception {
        Long version = state.fineVersions.get(start);
        return version == null ? tile.size() : version;
    }

    /**
     * Emits every changed tile of the current entity once, in its newest state: those marked to
     * publish, and those {@code drained} (if not null) changed, taken from it rather than read back
     * from state.
     */
    private void publish(String entity, TileBatch drained, Collector<TileUpdate> out)
            throws Exception {
        Map<Long, Long> changed = drained == null ? Map.of() : drained.fineChanges();
        for (Map.Entry<Long, Long> e : merged(state.pending.takeFine(), changed).entrySet()) {
            long start = e.getKey();
            boolean inBatch = changed.containsKey(start);
            Tile tile = inBatch ? drained.changedTile(start) : state.fine.get(start);
            if (tile != null) {
                long version = inBatch ? drained.fineVersion(start) : fineVersion(start, tile);
                out.collect(
                        new TileUpdate(TileWrites.fine(view, entity, version, tile), e.getValue()));
            }
        }
        publishPartials(OnlineStore.Level.MID, state.pending.takeMid(), entity, drained, out);
        publishPartials(OnlineStore.Level.COARSE, state.pending.takeCoarse(), entity, drained, out);
    }

    private void publishPartials(
            OnlineStore.Level level,
            List<Map.Entry<Long, Long>> pending,
            String entity,
            TileBatch drained,
            Collector<TileUpdate> out)
            throws Exception {
        Map<Long, Long> changed = drained == null ? Map.of() : drained.partialChanges(level);
        for (Map.Entry<Long, Long> e : merged(pending, changed).entrySet()) {
            long start = e.getKey();
            boolean inBatch = changed.containsKey(start);
            byte[] payload =
                    inBatch
                            ? drained.partialsBytes(level, start)
                            : state.partials(level).get(start);
            if (payload != null) {
                long version =
                        inBatch
                                ? drained.partialsVersion(level, start)
                                : state.versions(level).get(start);
                out.collect(
                        new TileUpdate(
                                level == OnlineStore.Level.MID
                                        ? TileWrites.mid(view, entity, start, version, payload)
                                        : TileWrites.coarse(view, entity, start, version, payload),
                                e.getValue()));
            }
        }
    }

    /** Tiles marked to publish and tiles just changed: start → newest event time of either. */
    private static Map<Long, Long> merged(
            List<Map.Entry<Long, Long>> pending, Map<Long, Long> changed) {
        if (pending.isEmpty()) {
            return changed;
        }
        Map<Long, Long> all = new HashMap<>(changed);
        for (Map.Entry<Long, Long> e : pending) {
            all.merge(e.getKey(), e.getValue(), Math::max);
        }
        return all;
    }
}
