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
import java.util.LinkedHashMap;
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
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Keeps one entity's tiles of one view in Flink state and emits every tile an event changes: the
 * fine tile (its events) and the coarse tile above it (partials updated incrementally). Keyed by
 * the entity. Late events update their tiles for as long as the tiles are retained; events older
 * than that are counted and dropped from the online store only (the lake still has them).
 *
 * <p>Tiles are evicted by event-time timers when they expire, so state is bounded by the view's
 * ttl.
 */
public final class TileAggregator extends KeyedProcessFunction<String, Event, TileUpdate> {

    private final ViewDef view;
    private final String schemaJson;
    private final OutputTag<GenericRecord> log;
    private transient Schema logSchema;

    private transient MapState<Long, byte[]> fine;
    private transient MapState<Long, byte[]> coarse;
    private transient MapState<Long, Long> coarseVersions;
    private transient GenericDatumReader<GenericRecord> reader;
    private transient BinaryDecoder decoder;
    private transient GenericRecord record;
    private transient Counter aggregated;
    private transient Counter tooLate;

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
        fine =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "fine",
                                        Types.LONG,
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        coarse =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "coarse",
                                        Types.LONG,
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        coarseVersions =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>("coarse-version", Types.LONG, Types.LONG));
        reader = new GenericDatumReader<>(new Schema.Parser().parse(schemaJson));
        logSchema = FeatureLog.schema(view);
        aggregated = getRuntimeContext().getMetricGroup().counter("eventsAggregated");
        tooLate = getRuntimeContext().getMetricGroup().counter("eventsBeyondRetention");
    }

    @Override
    public void processElement(Event event, Context ctx, Collector<TileUpdate> out)
            throws Exception {
        long s = view.tileMillis();
        long start = Windows.floor(event.eventTime, s);
        if (TileWrites.expiry(view, start, s) <= ctx.timerService().currentWatermark()) {
            tooLate.inc();
            return;
        }
        decoder = DecoderFactory.get().binaryDecoder(event.payload, decoder);
        record = reader.read(record, decoder);
        EventEntry entry = view.entry(record, event.id, event.eventTime);

        byte[] stored = fine.get(start);
        Tile tile = stored == null ? new Tile(start) : TileCodec.decodeFine(start, stored);
        if (!tile.add(entry)) {
            return; // already here: a replayed id
        }
        aggregated.inc();
        String entity = ctx.getCurrentKey();
        byte[] finePayload = TileCodec.encodeFine(tile);
        fine.put(start, finePayload);
        if (stored == null) {
            // At the tile's end it is logged; at its expiry it is evicted.
            ctx.timerService().registerEventTimeTimer(start + s);
            ctx.timerService().registerEventTimeTimer(TileWrites.expiry(view, start, s));
        } else if (log != null && start + s <= ctx.timerService().currentWatermark()) {
            // A late event changed a tile that was already logged: log its new state.
            ctx.output(log, FeatureLog.row(logSchema, view, entity, tile));
        }
        out.collect(
                new TileUpdate(
                        new OnlineStore.TileWrite(
                                new OnlineStore.TileKey(
                                        view.name(), entity, OnlineStore.Level.FINE, start),
                                tile.size(),
                                finePayload,
                                TileWrites.expiry(view, start, s)),
                        event.eventTime));

        long c = view.coarseMillis();
        long coarseStart = Windows.floor(start, c);
        byte[] storedCoarse = coarse.get(coarseStart);
        Map<String, Partial> partials =
                storedCoarse == null ? new LinkedHashMap<>() : TileCodec.decodeCoarse(storedCoarse);
        for (FeatureDef f : view.features()) {
            partials.computeIfAbsent(f.name(), n -> new Partial()).add(f, entry);
        }
        Long previous = coarseVersions.get(coarseStart);
        long version = previous == null ? 1 : previous + 1;
        byte[] coarsePayload = TileCodec.encodeCoarse(partials);
        coarse.put(coarseStart, coarsePayload);
        coarseVersions.put(coarseStart, version);
        if (storedCoarse == null) {
            ctx.timerService().registerEventTimeTimer(TileWrites.expiry(view, coarseStart, c));
        }
        out.collect(
                new TileUpdate(
                        new OnlineStore.TileWrite(
                                new OnlineStore.TileKey(
                                        view.name(), entity, OnlineStore.Level.COARSE, coarseStart),
                                version,
                                coarsePayload,
                                TileWrites.expiry(view, coarseStart, c)),
                        event.eventTime));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<TileUpdate> out)
            throws Exception {
        // A timer fires at a tile's end (log it) or at its expiry (evict it).
        if (log != null) {
            byte[] ended = fine.get(timestamp - view.tileMillis());
            if (ended != null) {
                ctx.output(
                        log,
                        FeatureLog.row(
                                logSchema,
                                view,
                                ctx.getCurrentKey(),
                                TileCodec.decodeFine(timestamp - view.tileMillis(), ended)));
            }
        }
        long fineStart = timestamp - view.tileMillis() - 2 * view.ttlMillis();
        fine.remove(fineStart);
        long coarseStart = timestamp - view.coarseMillis() - 2 * view.ttlMillis();
        if (Math.floorMod(coarseStart, view.coarseMillis()) == 0) {
            coarse.remove(coarseStart);
            coarseVersions.remove(coarseStart);
        }
    }
}
