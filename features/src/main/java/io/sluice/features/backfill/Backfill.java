package io.sluice.features.backfill;

import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterRouter;
import io.sluice.event.Parsed;
import io.sluice.features.job.FeaturesJob;
import io.sluice.features.job.JobProgress;
import io.sluice.features.job.TileUpdate;
import io.sluice.lake.LakeFiles;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The batch backfill of the offline feature log: the streaming features job's own topology ({@link
 * FeaturesJob#defineView}: validate, de-duplicate, {@code TileAggregator}, the feature log's side
 * output and file sink) in {@link RuntimeExecutionMode#BATCH}, reading the warehouse instead of
 * Kafka. The online store is not written: its tiles are the streaming job's, and a backfill of a
 * past range would only rewrite them with the same values or older ones.
 *
 * <p>In BATCH mode Flink sorts each keyed input by key and runs one entity at a time with the
 * watermark at {@code Long.MIN_VALUE}, then fires the entity's event-time timers with the watermark
 * at {@code Long.MAX_VALUE}. So every tile is logged once, at its end timer, holding all its
 * events: the final row the streaming job wrote for it (a streaming log may hold earlier rows of a
 * tile that late events later grew).
 *
 * <p>The log is written to {@code <root>/_staging/backfill/<run>/<view>} and then published hour by
 * hour ({@link LogPartitions}).
 */
public final class Backfill {

    /** Rows and hours of one view's backfilled log. */
    public record ViewResult(String view, int hoursWritten, int hoursRemoved, long rows) {}

    /** What a backfill did. */
    public record Result(String range, int hours, List<ViewResult> views) {
        public long rows() {
            return views.stream().mapToLong(ViewResult::rows).sum();
        }
    }

    /**
     * How long a finished file-source reader waits for its fetcher thread to stop. Flink 2.2's
     * fetcher sometimes never stops at the end of its files (a shutdown hand-over it can drop when
     * its queue is full, which looks like FLINK-40660), and the reader's close then waits out
     * Flink's default of 30 s before the job can finish: backfills in the build ended 30 s late,
     * three times per build. A fetcher that does stop takes milliseconds.
     */
    public static final long READER_CLOSE_TIMEOUT_MILLIS = 5_000;

    private Backfill() {}

    /**
     * The environment for a backfill run from here: in a local MiniCluster, whose task managers
     * take this configuration, a reader closes after {@link #READER_CLOSE_TIMEOUT_MILLIS} at most.
     * (On a cluster the task managers' own configuration decides; see the README's known
     * limitations.)
     */
    public static StreamExecutionEnvironment environment() {
        Configuration conf = new Configuration();
        conf.set(SourceReaderOptions.SOURCE_READER_CLOSE_TIMEOUT, READER_CLOSE_TIMEOUT_MILLIS);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /** Progress of a backfill's job. */
    public interface Progress {
        /**
         * @param done warehouse rows read so far
         * @param total the rows it reads: each view's source rows in range
         */
        void events(long done, long total);
    }

    /**
     * Runs the backfill of {@code plan} on {@code env} (switched to BATCH) and publishes its log.
     */
    public static Result run(StreamExecutionEnvironment env, SluiceConfig config, BackfillPlan plan)
            throws Exception {
        return run(env, config, plan, (done, total) -> {});
    }

    /**
     * Runs the backfill of {@code plan} on {@code env} (switched to BATCH), telling {@code
     * progress} the rows its job has read while it runs, and publishes its log.
     */
    public static Result run(
            StreamExecutionEnvironment env,
            SluiceConfig config,
            BackfillPlan plan,
            Progress progress)
            throws Exception {
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        URI stagingRoot = LakeFiles.resolve(plan.root(), "_staging/backfill");
        LogPartitions.removeLeftovers(stagingRoot);
        String run = LogPartitions.runName();
        URI staging = LakeFiles.resolve(stagingRoot, run);
        try {
            long total = events(config, plan);
            if (define(env, config, plan, staging)) {
                progress.events(0, total);
                Long read =
                        JobProgress.await(
                                        env.executeAsync("sluice-features-backfill"),
                                        DeadLetterRouter.EVENTS_READ,
                                        n -> progress.events(n, total))
                                .getAccumulatorResult(DeadLetterRouter.EVENTS_READ);
                progress.events(read == null ? 0 : read, total);
            }
            List<ViewResult> views = new ArrayList<>();
            for (FeatureViewConfig view : config.featureViews()) {
                LogPartitions.Published p =
                        LogPartitions.publish(
                                LakeFiles.resolve(staging, view.name()),
                                config.tablePath("features", view.name()),
                                plan.hours(),
                                LakeFiles.resolve(stagingRoot, run + ".old/" + view.name()));
                views.add(
                        new ViewResult(view.name(), p.hoursWritten(), p.hoursRemoved(), p.rows()));
            }
            return new Result(plan.range(), plan.hours().size(), views);
        } finally {
            LakeFiles.delete(staging, true);
        }
    }

    /** The rows the job reads: every view reads its source table's files in range. */
    public static long events(SluiceConfig config, BackfillPlan plan) {
        return config.featureViews().stream()
                .mapToLong(v -> plan.rows().getOrDefault(v.source(), 0L))
                .sum();
    }

    /**
     * Adds one pipeline per view whose source table has warehouse files in range.
     *
     * @return whether there is anything to run
     */
    static boolean define(
            StreamExecutionEnvironment env, SluiceConfig config, BackfillPlan plan, URI staging) {
        boolean any = false;
        for (FeatureViewConfig view : config.featureViews()) {
            TableConfig table = config.table(view.source()).orElseThrow();
            List<WarehouseSnapshot.File> files = plan.files().get(table.name());
            if (files.isEmpty()) {
                continue;
            }
            Map<String, Long> lengths = new LinkedHashMap<>();
            files.forEach(f -> lengths.put(new Path(f.location()).toString(), f.bytes()));
            FileSource<Parsed> source =
                    FileSource.forRecordStreamFormat(
                                    new WarehouseEventFormat(table),
                                    lengths.keySet().stream().map(Path::new).toArray(Path[]::new))
                            .setFileEnumerator(new KnownFiles(lengths))
                            .build();
            FeaturesJob.defineView(
                    env,
                    view,
                    table,
                    source,
                    new DiscardingSink<TileUpdate>(),
                    false,
                    LakeFiles.resolve(staging, view.name()).toString());
            any = true;
        }
        return any;
    }
}
