package io.sluice.features.job;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.Event;
import io.sluice.event.EventStreams;
import io.sluice.event.Parsed;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.log.FeatureLog;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;

/**
 * The features job: per feature view, the source table's topic through the same parse, validate and
 * de-duplicate path as ingest ({@link EventStreams#validated}, {@link EventStreams#deduplicated}),
 * then keyed tile aggregation in Flink state ({@link TileAggregator}) and the online store ({@link
 * OnlineSink}). The de-duplication runs in its retracting mode: when a later-arriving copy of an id
 * wins under {@link io.sluice.event.DuplicateRule}, the tiles first drop the copy it supersedes.
 * Dead letters are the ingest job's to publish; here they are only counted.
 */
public final class FeaturesJob {

    /** How long a tile update may wait in a batch. */
    public static final long FLUSH_INTERVAL_MILLIS = 100;

    private FeaturesJob() {}

    /** Adds every view's pipeline, reading Kafka; bounded runs stop at the current end offsets. */
    public static void define(
            StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        define(env, config, bounded, false);
    }

    /**
     * Adds every view's pipeline; with {@code fromEarliest} each topic is read from its earliest
     * retained offset, as a rebuild of the online store needs.
     */
    public static void define(
            StreamExecutionEnvironment env,
            SluiceConfig config,
            boolean bounded,
            boolean fromEarliest) {
        for (FeatureViewConfig view : config.featureViews()) {
            TableConfig table = config.table(view.source()).orElseThrow();
            defineView(
                    env,
                    view,
                    table,
                    EventStreams.source(config.kafka(), table, bounded, job(view), fromEarliest),
                    new OnlineSink(config.online(), view.name(), FLUSH_INTERVAL_MILLIS),
                    config.online().store() == io.sluice.config.OnlineStoreType.SQLITE,
                    config.tablePath("features", view.name()).toString());
        }
    }

    /**
     * One view's topology; uids are {@code features-<view>-…}.
     *
     * @param featureLog where the offline feature log goes ({@code <root>/features/<view>}), or
     *     null for none
     */
    public static DataStream<TileUpdate> defineView(
            StreamExecutionEnvironment env,
            FeatureViewConfig view,
            TableConfig table,
            Source<Parsed, ?, ?> source,
            Sink<TileUpdate> online,
            boolean singleWriter,
            String featureLog) {
        String job = job(view);
        ViewDef def = ViewDef.of(view, table);
        OutputTag<GenericRecord> logTag = featureLog == null ? null : FeatureLog.tag(def);
        SingleOutputStreamOperator<Event> accepted =
                EventStreams.deduplicated(
                        EventStreams.validated(env, table, source, job), table, job, true);
        SingleOutputStreamOperator<TileUpdate> tiles =
                // Entity keys with a serializer that writes each key in one call: Flink's
                // StringSerializer writes a character at a time, and a checkpoint of the heap
                // backend writes every key once per state (see StateKeySerializer).
                accepted.keyBy(e -> e.key, io.sluice.event.StateKeyTypeInfo.INSTANCE)
                        .process(new TileAggregator(def, table.schema(), logTag))
                        .uid(tilesUid(def))
                        .name("tiles-" + view.name());
        if (featureLog != null) {
            tiles.getSideOutput(logTag)
                    .sinkTo(FeatureLog.sink(featureLog, def))
                    .uid(job + "-log")
                    .name("feature-log-" + view.name());
        }
        var sink = tiles.sinkTo(online).uid(job + "-online").name("online-" + view.name());
        if (singleWriter) {
            // One SQLite file takes one writer at a time; more would only queue on its lock.
            sink.setParallelism(1);
        }
        return tiles;
    }

    /**
     * The uid of a view's tiles operator, {@code features-<view>-tiles-<layout>}. Its state (and
     * the online store's tiles) keep each event's values of the view's source fields, in first-use
     * order, per fine tile: {@code layout} is a digest of the tile size and those fields, so a
     * savepoint restores into a job whose tiles hold the same values, and a change that would
     * misread them (a feature over a new field, another tile size) leaves the state unclaimed and
     * the restore refused, naming this uid. A feature added over fields the view already reads, a
     * new window, or a changed ttl keeps the uid.
     */
    public static String tilesUid(ViewDef def) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(
                (def.tileMillis() + "|" + String.join(",", def.fields()))
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return String.format("features-%s-tiles-%08x", def.name(), crc.getValue());
    }

    /** The view's job name: its operator uids' prefix and its consumer group's suffix. */
    public static String job(FeatureViewConfig view) {
        return "features-" + view.name();
    }
}
