package io.sluice.features.job;

import io.sluice.event.Event;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.Partial;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.log.FeatureLog;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.TileWrites;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Keeps one entity's tiles of one view in Flink state and publishes the tiles events change: the
 * fine tile (its events) and the coarse tile above it (partials updated incrementally). Keyed by
 * the entity.
 *
 * <p>Changed tiles are published by a processing-time timer {@link #PUBLISH_DELAY_MILLIS} after the
 * first change, so an entity that receives many events in that time has each tile encoded and
 * written once, not once per event. Late events update their tiles for as long as the tiles are
 * retained; events older than that are counted and left out of the online store (the lake still has
 * them). Tiles are evicted by event-time timers at their expiry, so state is bounded by the view's
 * ttl; at a tile's end it goes to the feature log.
 *
 * <p>A {@linkplain Event#retraction retraction} (from the de-duplication, when a later-arriving
 * copy of an id wins under {@link io.sluice.event.DuplicateRule}) removes the superseded copy from
 * its fine tile, if that is still retained, and recomputes the coarse tile above it from its fine
 * tiles; both are re-published (and the fine tile re-logged if it was logged already), and the
 * winning copy follows as an ordinary event. Because a tile can shrink, every tile's online version
 * is a modification count kept in state beside it ({@code fine-version}, {@code coarse-version}):
 * each change raises it by one, so the store's compare-and-set takes every change and refuses only
 * replays of older states. (A fine tile restored from a checkpoint taken before that count existed
 * starts from its size, which is what it was published with.)
 */
public final class TileAggregator extends KeyedProcessFunction<String, Event, TileUpdate> {

    /** How long a changed tile may wait before it is published. */
    static final long PUBLISH_DELAY_MILLIS = 50;

    private final ViewDef view;
    private final String schemaJson;
    private final OutputTag<GenericRecord> log;

    private transient MapState<Long, Tile> fine;
    private transient MapState<Long, byte[]> coarse;
    private transient MapState<Long, Long> coarseVersions;
    private transient MapState<Long, Long> fineVersions;

    /** Changed fine tiles (start → newest event time among the changes) not yet published. */
    private transient MapState<Long, Long> dirtyFine;

    private transient MapState<Long, Long> dirtyCoarse;
    private transient ValueState<Long> publishAt;
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
        dirtyFine = rc.getMapState(new MapStateDescriptor<>("dirty-fine", Types.LONG, Types.LONG));
        dirtyCoarse =
                rc.getMapState(new MapStateDescriptor<>("dirty-coarse", Types.LONG, Types.LONG));
        publishAt = rc.getState(new ValueStateDescriptor<>("publish-at", Types.LONG));
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
        if (event.retraction) {
            retract(event, start, watermark, ctx);
            return;
        }
        decoder = DecoderFactory.get().binaryDecoder(event.payload, decoder);
        record = reader.read(record, decoder);
        EventEntry entry = view.entry(record, event.id, event.eventTime);

        Tile tile = fine.get(start);
        boolean created = tile == null;
        if (created) {
            tile = new Tile(start);
        }
        if (!tile.add(entry)) {
            return; // already here: a replayed id
        }
        aggregated.inc();
        fine.put(start, tile);
        bumpFineVersion(start, tile.size() - 1);
        if (created) {
            // At the tile's end it is logged; at its expiry it is evicted.
            ctx.timerService().registerEventTimeTimer(start + s);
            ctx.timerService().registerEventTimeTimer(TileWrites.expiry(view, start, s));
        } else if (log != null && start + s <= watermark) {
            // A late event changed a tile that was already logged: log its new state.
            ctx.output(
                    log,
                    FeatureLog.row(
                            logSchema, view, ctx.getCurrentKey(), tile, fineVersion(start, tile)));
        }
        markDirty(dirtyFine, start, event.eventTime);

        long c = view.coarseMillis();
        long coarseStart = Windows.floor(start, c);
        byte[] storedCoarse = coarse.get(coarseStart);
        Map<String, Partial> partials =
                storedCoarse == null ? new LinkedHashMap<>() : TileCodec.decodeCoarse(storedCoarse);
        for (FeatureDef f : view.features()) {
            partials.computeIfAbsent(f.name(), n -> new Partial()).add(f, entry);
        }
        Long previous = coarseVersions.get(coarseStart);
        coarse.put(coarseStart, TileCodec.encodeCoarse(partials));
        coarseVersions.put(coarseStart, previous == null ? 1 : previous + 1);
        if (storedCoarse == null) {
            ctx.timerService().registerEventTimeTimer(TileWrites.expiry(view, coarseStart, c));
        }
        markDirty(dirtyCoarse, coarseStart, event.eventTime);

        schedulePublish(ctx);
    }

    /**
     * Removes a superseded copy from its fine tile and recomputes the coarse tile above it from the
     * fine tiles it covers. Fine tiles are evicted in order of start, so when the first fine tile
     * of the coarse one is gone some of its partials can no longer be recomputed; such a coarse
     * tile lies before the start of every window a read within retention asks for ({@link
     * TileWrites#expiry}), so it is recomputed from the fine tiles still there and never read.
     */
    private void retract(Event event, long start, long watermark, Context ctx) throws Exception {
        long s = view.tileMillis();
        Tile tile = fine.get(start);
        if (tile == null || tile.remove(event.id) == null) {
            return; // the superseded copy never reached a tile (e.g. it was beyond retention)
        }
        retracted.inc();
        fine.put(start, tile);
        bumpFineVersion(start, tile.size() + 1);
        if (log != null && start + s <= watermark) {
            // Like a late event: the tile was logged already; log its new state.
            ctx.output(
                    log,
                    FeatureLog.row(
                            logSchema, view, ctx.getCurrentKey(), tile, fineVersion(start, tile)));
        }
        markDirty(dirtyFine, start, event.eventTime);

        long c = view.coarseMillis();
        long coarseStart = Windows.floor(start, c);
        List<Tile> covered = new ArrayList<>();
        for (long f = coarseStart; f < coarseStart + c; f += s) {
            Tile t = fine.get(f);
            if (t != null) {
                covered.add(t);
            }
        }
        coarse.put(coarseStart, TileCodec.encodeCoarse(view, covered));
        Long previous = coarseVersions.get(coarseStart);
        coarseVersions.put(coarseStart, previous == null ? 1 : previous + 1);
        markDirty(dirtyCoarse, coarseStart, event.eventTime);
        schedulePublish(ctx);
    }

    /** Raises a fine tile's version by one; {@code sizeBefore} stands in for a missing one. */
    private void bumpFineVersion(long start, long sizeBefore) throws Exception {
        Long version = fineVersions.get(start);
        fineVersions.put(start, (version == null ? sizeBefore : version) + 1);
    }

    private void schedulePublish(Context ctx) throws Exception {
        if (publishAt.value() == null) {
            long at = ctx.timerService().currentProcessingTime() + PUBLISH_DELAY_MILLIS;
            publishAt.update(at);
            ctx.timerService().registerProcessingTimeTimer(at);
        }
    }

    private static void markDirty(MapState<Long, Long> dirty, long start, long eventTime)
            throws Exception {
        Long newest = dirty.get(start);
        if (newest == null || newest < eventTime) {
            dirty.put(start, eventTime);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<TileUpdate> out)
            throws Exception {
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            publish(ctx.getCurrentKey(), out);
            return;
        }
        // Event time: a tile's end (log it) or its expiry (evict it).
        if (log != null) {
            Tile ended = fine.get(timestamp - view.tileMillis());
            if (ended != null && ended.size() > 0) {
                ctx.output(
                        log,
                        FeatureLog.row(
                                logSchema,
                                view,
                                ctx.getCurrentKey(),
                                ended,
                                fineVersion(ended.start(), ended)));
            }
        }
        long fineStart = timestamp - view.tileMillis() - 2 * view.ttlMillis();
        if (dirtyFine.contains(fineStart)
                || dirtyCoarse.contains(Windows.floor(fineStart, view.coarseMillis()))) {
            publish(ctx.getCurrentKey(), out); // never evict what is still to be published
        }
        fine.remove(fineStart);
        fineVersions.remove(fineStart);
        long coarseStart = timestamp - view.coarseMillis() - 2 * view.ttlMillis();
        if (Math.floorMod(coarseStart, view.coarseMillis()) == 0) {
            coarse.remove(coarseStart);
            coarseVersions.remove(coarseStart);
        }
    }

    private long fineVersion(long start, Tile tile) throws Exception {
        Long version = fineVersions.get(start);
        return version == null ? tile.size() : version;
    }

    /** Emits every changed tile of the current entity once, in its newest state. */
    private void publish(String entity, Collector<TileUpdate> out) throws Exception {
        long s = view.tileMillis();
        List<Map.Entry<Long, Long>> changed = new ArrayList<>();
        dirtyFine.entries().forEach(changed::add);
        for (Map.Entry<Long, Long> e : changed) {
            Tile tile = fine.get(e.getKey());
            if (tile != null) {
                out.collect(
                        new TileUpdate(
                                new OnlineStore.TileWrite(
                                        new OnlineStore.TileKey(
                                                view.name(),
                                                entity,
                                                OnlineStore.Level.FINE,
                                                e.getKey()),
                                        fineVersion(e.getKey(), tile),
                                        TileCodec.encodeFine(tile),
                                        TileWrites.expiry(view, e.getKey(), s)),
                                e.getValue()));
            }
        }
        dirtyFine.clear();
        long c = view.coarseMillis();
        changed.clear();
        dirtyCoarse.entries().forEach(changed::add);
        for (Map.Entry<Long, Long> e : changed) {
            byte[] payload = coarse.get(e.getKey());
            if (payload != null) {
                out.collect(
                        new TileUpdate(
                                new OnlineStore.TileWrite(
                                        new OnlineStore.TileKey(
                                                view.name(),
                                                entity,
                                                OnlineStore.Level.COARSE,
                                                e.getKey()),
                                        coarseVersions.get(e.getKey()),
                                        payload,
                                        TileWrites.expiry(view, e.getKey(), c)),
                                e.getValue()));
            }
        }
        dirtyCoarse.clear();
        publishAt.clear();
    }
}
