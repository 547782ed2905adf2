package io.sluice.ingest;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetter;
import io.sluice.event.DeadLetterRouter;
import io.sluice.event.Event;
import io.sluice.event.EventStreams;
import io.sluice.event.Parsed;
import io.sluice.lake.AvroPayloadWriter;
import io.sluice.lake.HourManifest;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.LandingScan;
import java.io.IOException;
import java.net.URI;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The ingest job: Kafka topics into the exactly-once Avro landing zone, one independent pipeline
 * per table (source, parse, dead letters, de-duplication, landing sink).
 *
 * <p>{@link #defineTable} holds the topology and takes its source and sinks as arguments, so the
 * deployed job, local mode and tests wire the same operators to different I/O.
 */
public final class IngestJob {

    private IngestJob() {}

    /**
     * After a bounded run has ended, publishes the manifest of every landing hour with committed
     * files that no manifest covers. The run read its input to the end, so its watermark reached
     * the end of time and every hour is complete; but the manifest step may have missed the final
     * checkpoint's commits, which Flink 2.2 can drop on the edge from the committers to it
     * (FLINK-38614). Every file is committed once the run has ended.
     *
     * @return the manifests published
     */
    public static int publishRemainingHours(SluiceConfig config) throws IOException {
        int published = 0;
        for (TableConfig table : config.tables()) {
            URI dir = config.tablePath("raw", table.name());
            for (LandingScan.Hour hour : LandingScan.scan(new Path(dir))) {
                if (hour.unpublished()) {
                    HourManifest.write(
                            new Path(LakeFiles.resolve(dir, hour.partition())),
                            table.name(),
                            table.schema(),
                            hour.hourStart(),
                            Long.MAX_VALUE,
                            table.allowedLateness(),
                            -1);
                    published++;
                }
            }
        }
        return published;
    }

    /** Adds every table's pipeline, reading Kafka; bounded runs stop at the current end offsets. */
    public static void define(
            StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        for (TableConfig table : config.tables()) {
            defineTable(env, config, table, bounded);
        }
    }

    /** One table's pipeline, reading its topic and writing its landing zone and dead letters. */
    public static DataStream<Event> defineTable(
            StreamExecutionEnvironment env,
            SluiceConfig config,
            TableConfig table,
            boolean bounded) {
        return defineTable(
                env,
                table,
                EventStreams.source(config.kafka(), table, bounded),
                EventStreams.deadLetterSink(config.kafka(), table),
                new LandingSink(
                        config.tablePath("raw", table.name()).toString(),
                        table.name(),
                        table.schema(),
                        AvroPayloadWriter.CODEC,
                        table.allowedLateness()));
    }

    /** One table's topology. Every stateful operator has a stable uid for savepoints. */
    public static DataStream<Event> defineTable(
            StreamExecutionEnvironment env,
            TableConfig table,
            Source<Parsed, ?, ?> source,
            Sink<DeadLetter> deadLetters,
            Sink<Event> landing) {
        String t = table.name();
        SingleOutputStreamOperator<Event> valid =
                EventStreams.validated(env, table, source, "ingest");
        valid.getSideOutput(DeadLetterRouter.DEAD_LETTERS)
                .sinkTo(deadLetters)
                .uid("ingest-" + t + "-dead-letters")
                .name("dead-letters-" + t);
        SingleOutputStreamOperator<Event> accepted =
                EventStreams.deduplicated(valid, table, "ingest");
        accepted.sinkTo(landing).uid("ingest-" + t + "-landing").name("landing-" + t);
        return accepted;
    }
}
