package io.sluice.features.job;

import io.sluice.event.Event;
import io.sluice.features.agg.CoarsePartials;
import io.sluice.features.agg.EventEntry;
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
 * fine tile (its events) and the mid and coarse tiles above it (partials updated incrementally).
 * Keyed by the entity.
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

    private transient MapState<Long, Tile> fine;
    private transient MapState<Long, byte[]> coarse;
    private transient MapState<Long, Long> coarseVersions;
    private transient MapState<Long, byte[]> mid;
    private transient MapState<Long, Long> midVersions;
    private transient MapState<Long, Long> fineVersions;

    private transient PendingTiles pending;
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
        mid =
                rc.getMapState(
                        new MapStateDescriptor<>(
                                "mid",
                                Types.LONG,
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        midVersions =
                rc.getMapState(new MapStateDescriptor<>("mid-version", Types.LONG, Types.LONG));
        pending = new PendingTiles(rc);
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
        if (created) {
            // At the tile's end it is logged; at its expiry it is evicted.
            ctx.timerService().registerEventTimeTimer(start + s);
            ctx.timerService().registerEventTimeTimer(TileWrites.expiry(view, start, s));
        }
        fineChanged(tile, tile.size() - 1, !created, event.eventTime, watermark, ctx);

        for (OnlineStore.Level level : PARTIALS) {
            long size = TileWrites.size(view, level);
            long partialsStart = Windows.floor(start, size);
            byte[] stored = partials(level).get(partialsStart);
            Map<String, Partial> partials =
                    stored == null ? new LinkedHashMap<>() : TileCodec.decodeCoarse(stored);
            CoarsePartials.add(view, partials, entry);
            if (stored == null) {
                ctx.timerService()
                        .registerEventTimeTimer(TileWrites.expiry(view, partialsStart, size));
            }
            partialsChanged(level, partialsStart, partials, event.eventTime, ctx);
        }
    }

    /** The levels of tiles that keep partials over fine tiles. */
    private static final OnlineStore.Level[] PARTIALS = {
        OnlineStore.Level.COARSE, OnlineStore.Level.MID
    };

    private MapState<Long, byte[]> partials(OnlineStore.Level level) {
        return level == OnlineStore.Level.COARSE ? coarse : mid;
    }

    private MapState<Long, Long> versions(OnlineStore.Level level) {
        return level == OnlineStore.Level.COARSE ? coarseVersions : midVersions;
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
        fineChanged(tile, tile.size() + 1, true, event.eventTime, watermark, ctx);

        for (OnlineStore.Level level : PARTIALS) {
            long size = TileWrites.size(view, level);
            long partialsStart = Windows.floor(start, size);
            List<Tile> covered = new ArrayList<>();
            for (long f = partialsStart; f < partialsStart + size; f += s) {
                Tile t = fine.get(f);
                if (t != null) {
                    covered.add(t);
                }
            }
            partialsChanged(
                    level, partialsStart, CoarsePartials.of(view, covered), event.eventTime, ctx);
        }
    }

    /**
     * Stores a changed fine tile, raises its version and marks it to publish; a tile that existed
     * and has ended already was logged, so its new state is logged again.
     */
    private void fineChanged(
            Tile tile,
            long sizeBefore,
            boolean existed,
            long eventTime,
            long watermark,
            Context ctx)
            throws Exception {
        long start = tile.start();
        fine.put(start, tile);
        Long version = fineVersions.get(start);
        fineVersions.put(start, (version == null ? sizeBefore : version) + 1);
        if (existed && start + view.tileMillis() <= watermark) {
            log(ctx.getCurrentKey(), tile, ctx);
        }
        pending.fine(start, eventTime);
    }

    /** Stores a mid or coarse tile's new partials, raises its version and marks it to publish. */
    private void partialsChanged(
            OnlineStore.Level level,
            long start,
            Map<String, Partial> partials,
            long eventTime,
            Context ctx)
            throws Exception {
        partials(level).put(start, TileCodec.encodeCoarse(partials));
        Long previous = versions(level).get(start);
        versions(level).put(start, previous == null ? 1 : previous + 1);
        pending.partials(level, start, eventTime);
        pending.schedule(ctx.timerService(), PUBLISH_DELAY_MILLIS);
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
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            publish(ctx.getCurrentKey(), out);
            return;
        }
        // Event time: a tile's end (log it) or its expiry (evict it).
        Tile ended = fine.get(timestamp - view.tileMillis());
        if (ended != null && ended.size() > 0) {
            log(ctx.getCurrentKey(), ended, ctx);
        }
        long fineStart = timestamp - view.tileMillis() - 2 * view.ttlMillis();
        if (pending.contains(
                fineStart,
                Windows.floor(fineStart, view.coarseMillis()),
                Windows.floor(fineStart, view.midMillis()))) {
            publish(ctx.getCurrentKey(), out); // never evict what is still to be published
        }
        fine.remove(fineStart);
        fineVersions.remove(fineStart);
        for (OnlineStore.Level level : PARTIALS) {
            long size = TileWrites.size(view, level);
            long partialsStart = timestamp - size - 2 * view.ttlMillis();
            if (Math.floorMod(partialsStart, size) == 0) {
                partials(level).remove(partialsStart);
                versions(level).remove(partialsStart);
            }
        }
    }

    private long fineVersion(long start, Tile tile) throws Exception {
        Long version = fineVersions.get(start);
        return version == null ? tile.size() : version;
    }

    /** Emits every changed tile of the current entity once, in its newest state. */
    private void publish(String entity, Collector<TileUpdate> out) throws Exception {
        for (Map.Entry<Long, Long> e : pending.takeFine()) {
            Tile tile = fine.get(e.getKey());
            if (tile != null) {
                long version = fineVersion(e.getKey(), tile);
                out.collect(
                        new TileUpdate(TileWrites.fine(view, entity, version, tile), e.getValue()));
            }
        }
        for (Map.Entry<Long, Long> e : pending.takeMid()) {
            byte[] payload = mid.get(e.getKey());
            if (payload != null) {
                long version = midVersions.get(e.getKey());
                out.collect(
                        new TileUpdate(
                                TileWrites.mid(view, entity, e.getKey(), version, payload),
                                e.getValue()));
            }
        }
        for (Map.Entry<Long, Long> e : pending.takeCoarse()) {
            byte[] payload = coarse.get(e.getKey());
            if (payload != null) {
                long version = coarseVersions.get(e.getKey());
                out.collect(
                        new TileUpdate(
                                TileWrites.coarse(view, entity, e.getKey(), version, payload),
                                e.getValue()));
            }
        }
    }
}
