package io.sluice.ingest;

import io.sluice.event.Event;
import io.sluice.lake.AvroPayloadWriter;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import org.apache.avro.Schema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriter;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * Flink's {@link FileSink} writing a table's Avro landing zone, plus a post-commit step that
 * publishes the {@code _SUCCESS} manifest of each hour once the watermark has completed it and its
 * files are committed.
 *
 * <p>All writing and committing is Flink's: this class only delegates, because the file sink offers
 * no hook after its commit. The writers and committers run at the job's parallelism; the manifest
 * step is one task per table ({@link #MANIFEST_PARALLELISM}) that hears every committer.
 */
public final class LandingSink
        implements Sink<Event>,
                SupportsWriterState<Event, FileWriterBucketState>,
                SupportsWriterState.WithCompatibleState,
                SupportsCommitter<FileSinkCommittable>,
                SupportsPostCommitTopology<FileSinkCommittable> {

    private static final long serialVersionUID = 1L;

    /**
     * One manifest step per table: an hour's manifest lists the files of every writer, so one task
     * must see every commit. It is the only global step of the landing, and it handles a message
     * per commit, not per record. On the edge from the committers to it Flink 2.2 can drop the
     * committables of a bounded run's final checkpoint (FLINK-38614): such a run ends with {@link
     * IngestJob#publishRemainingHours}.
     */
    public static final int MANIFEST_PARALLELISM = 1;

    private final FileSink<Event> files;
    private final String basePath;
    private final String table;
    private final String schemaJson;
    private final Duration allowedLateness;

    public LandingSink(
            String basePath, String table, Schema schema, String codec, Duration allowedLateness) {
        this.files =
                FileSink.forBulkFormat(
                                new Path(basePath), new AvroPayloadWriter.Factory(schema, codec))
                        .withBucketAssigner(new HourPartitioner())
                        .withRollingPolicy(OnCheckpointRollingPolicy.build())
                        .withOutputFileConfig(
                                OutputFileConfig.builder()
                                        .withPartPrefix("part")
                                        .withPartSuffix(".avro")
                                        .build())
                        .build();
        this.basePath = basePath;
        this.table = table;
        this.schemaJson = schema.toString();
        this.allowedLateness = allowedLateness;
    }

    @Override
    public FileWriter<Event> createWriter(WriterInitContext context) throws IOException {
        return files.createWriter(context);
    }

    @Override
    public FileWriter<Event> restoreWriter(
            WriterInitContext context, Collection<FileWriterBucketState> recoveredState)
            throws IOException {
        return files.restoreWriter(context, recoveredState);
    }

    @Override
    public SimpleVersionedSerializer<FileWriterBucketState> getWriterStateSerializer() {
        return files.getWriterStateSerializer();
    }

    @Override
    public Collection<String> getCompatibleWriterStateNames() {
        return files.getCompatibleWriterStateNames();
    }

    @Override
    public Committer<FileSinkCommittable> createCommitter(CommitterInitContext context)
            throws IOException {
        return files.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<FileSinkCommittable> getCommittableSerializer() {
        return files.getCommittableSerializer();
    }

    @Override
    public void addPostCommitTopology(
            DataStream<CommittableMessage<FileSinkCommittable>> committed) {
        // Every committer's messages go to the one manifest task.
        committed
                .global()
                .transform(
                        "hour-manifests",
                        Types.VOID,
                        new HourCompletionOperator(
                                basePath, table, schemaJson, allowedLateness.toMillis()))
                .uid("hour-manifests")
                .setParallelism(MANIFEST_PARALLELISM);
    }
}
