package io.sluice.features.training;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.Status;
import io.sluice.lake.LakeFiles;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Point-in-time-correct training sets: for each spine row {@code (e, t, labels…)}, every requested
 * feature as {@code value(f, e, t)}, computed by the shared library ({@link
 * io.sluice.features.agg.Windows}) from the warehouse's events, the same code that serves them
 * online. The entry point composes the parts: {@link TrainingPlan} (which rows, hours and buckets),
 * {@link PointInTime} (the values, per view and bucket), {@link TrainingSetWriter} (the Parquet
 * file) and {@link ArtifactStore} (the digest-addressed cache). What it is asked is a {@link
 * TrainingSetRequest}; what a build did, a {@link TrainingSetResult}.
 *
 * <p>A request may join views of several entities (a user view and an item view): each view reads
 * the spine's column named as its entity, and a row whose key there is null or empty is {@link
 * Status#NOT_FOUND} in that view. A row the warehouse cannot answer whole for a view (see {@link
 * TrainingSetRequest.Incomplete}) is refused or {@link Status#INCOMPLETE}, never answered from part
 * of the data.
 *
 * <p>It reads only what the rows need: per view, the hours their windows touch and, in each, the
 * bucket files of the spine's entities, found through the hours' manifests. A training set is an
 * immutable artifact under {@code <root>/training_sets/<digest>/}, addressed by a digest of the
 * spine's bytes, the definitions of the requested features and the manifests of every warehouse
 * hour read; a request whose digest exists is answered with that artifact without recomputing. The
 * lake may be a {@code file:} directory or an object store ({@link ArtifactStore} says how an
 * artifact is published on each); the spine and the exported output are local files.
 */
public final class TrainingSetBuilder {

    /** The default name of the spine's time column. */
    public static final String TIMESTAMP_COLUMN = "event_timestamp";

    /** Receives how far a build's job is. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param done rows its passes have computed so far (one pass per entity of the request)
         * @param total the spine's rows times its passes
         */
        void rows(long done, long total);
    }

    /** The most rows a task computes at once, unless told otherwise. */
    public static final int CHUNK_ROWS = 100_000;

    private final SluiceConfig config;
    private final URI root;
    private final Supplier<StreamExecutionEnvironment> environment;
    private final int chunkRows;
    private final Progress progress;

    /** A builder running its job on this machine, with one task per core. */
    public TrainingSetBuilder(SluiceConfig config) {
        this(config, Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * A builder running its job on this machine (or the context's cluster), at parallelism {@code
     * parallelism}.
     */
    public TrainingSetBuilder(SluiceConfig config, int parallelism) {
        this(config, local(parallelism), CHUNK_ROWS);
    }

    /**
     * @param environment where the job runs: a local MiniCluster, or a remote cluster's
     * @param chunkRows the most rows a task computes at once (with their entities' tiles)
     */
    public TrainingSetBuilder(
            SluiceConfig config, Supplier<StreamExecutionEnvironment> environment, int chunkRows) {
        this(config, environment, chunkRows, (done, total) -> {});
    }

    private TrainingSetBuilder(
            SluiceConfig config,
            Supplier<StreamExecutionEnvironment> environment,
            int chunkRows,
            Progress progress) {
        if (chunkRows < 1) {
            throw new IllegalArgumentException("chunk rows: at least 1, got " + chunkRows);
        }
        this.config = config;
        this.root = config.rootUri();
        this.environment = environment;
        this.chunkRows = chunkRows;
        this.progress = progress;
    }

    /** This builder, telling {@code progress} how far each build's job is while it runs. */
    public TrainingSetBuilder withProgress(Progress progress) {
        return new TrainingSetBuilder(config, environment, chunkRows, progress);
    }

    /** This JVM's execution environment (a MiniCluster, or a test's) at {@code parallelism}. */
    public static Supplier<StreamExecutionEnvironment> local(int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("--parallelism: at least 1, got " + parallelism);
        }
        return () -> {
            // Tasks report their accumulators (the build's progress) with each heartbeat: every
            // second here rather than Flink's default ten.
            org.apache.flink.configuration.Configuration conf =
                    new org.apache.flink.configuration.Configuration();
            conf.set(
                    org.apache.flink.configuration.HeartbeatManagerOptions.HEARTBEAT_INTERVAL,
                    java.time.Duration.ofSeconds(1));
            // Its file sources' readers close as a local backfill's do (Backfill.environment).
            conf.set(
                    org.apache.flink.connector.base.source.reader.SourceReaderOptions
                            .SOURCE_READER_CLOSE_TIMEOUT,
                    io.sluice.features.backfill.Backfill.READER_CLOSE_TIMEOUT_MILLIS);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(parallelism);
            return env;
        };
    }

    /** Where artifacts live: {@code <root>/training_sets}. */
    public URI artifacts() {
        return LakeFiles.resolve(root, "training_sets");
    }

    /**
     * The instant before which the warehouse holds every event of {@code table}: the end of its
     * last complete, compacted hour, or empty when it has none. A spine row of a view of that table
     * at a later time is {@link Status#INCOMPLETE} (or refused); an earlier one is too if its
     * window needs an hour that is open or not compacted.
     */
    public Optional<Instant> coveredUntil(TableConfig table) throws IOException {
        return CompleteHours.coveredUntil(config, table);
    }

    /**
     * Builds the training set, or finds it already built.
     *
     * @throws IncompleteDataException when the request refuses rows the warehouse cannot answer
     *     whole and there are some
     */
    public TrainingSetResult build(TrainingSetRequest request) throws IOException {
        return build(request, true);
    }

    /**
     * @param reuse false to compute even when the artifact exists (benchmarks); the result is then
     *     not published, and its parts are the caller's to delete: on a file system their staging
     *     directory, {@code data}'s parent; on an object store {@code data}, which the clean-up of
     *     abandoned builds also deletes a day later
     */
    public TrainingSetResult build(TrainingSetRequest request, boolean reuse) throws IOException {
        TrainingPlan plan = TrainingPlan.of(config, request);
        String digest = ArtifactDigest.of(request, plan);
        ArtifactStore store = new ArtifactStore(artifacts());
        Optional<ArtifactStore.Artifact> found = reuse ? store.find(digest) : Optional.empty();
        if (found.isPresent()) {
            JsonNode manifest = found.get().manifest();
            long incomplete = manifest.path("incomplete_rows").asLong();
            if (request.incomplete() == TrainingSetRequest.Incomplete.REFUSE && incomplete > 0) {
                throw new IncompleteDataException(manifest.path("refusal").asText(), incomplete);
            }
            return new TrainingSetResult(
                    digest,
                    found.get().data(),
                    found.get().parts(),
                    true,
                    manifest.path("rows").asLong(),
                    plan.partitions,
                    List.of(),
                    Map.of(),
                    plan.snapshots);
        }
        ArtifactStore.Staging staging = store.stage(digest);
        TrainingSetJob.Outcome outcome;
        List<URI> parts;
        try {
            outcome =
                    TrainingSetJob.run(
                            environment.get(),
                            plan,
                            request.spine(),
                            request.statusColumns(),
                            staging.data(),
                            chunkRows,
                            progress);
            parts = TrainingSetJob.parts(staging.data());
            if (parts.isEmpty()) {
                // No rows (an empty sample): one empty part, so the artifact has the schema.
                URI empty = LakeFiles.resolve(staging.data(), "part-00000.parquet");
                TrainingSetWriter.write(
                        empty,
                        TrainingSetWriter.schema(
                                plan.spineSchema(), plan.features, request.statusColumns()),
                        writer -> {});
                parts = List.of(empty);
            }
            if (request.incomplete() == TrainingSetRequest.Incomplete.REFUSE
                    && !outcome.incomplete().isEmpty()) {
                throw new IncompleteDataException(plan.refusal(outcome), outcome.incompleteRows());
            }
        } catch (IOException | RuntimeException e) {
            store.discard(staging, e);
            throw e;
        } catch (Exception e) {
            store.discard(staging, e);
            throw new IOException("the training-set job failed: " + e.getMessage(), e);
        }
        if (!reuse) {
            return new TrainingSetResult(
                    digest,
                    staging.data(),
                    parts,
                    false,
                    outcome.rows(),
                    outcome.partitions(),
                    outcome.files(),
                    outcome.statuses(),
                    plan.snapshots);
        }
        boolean reused =
                store.publish(
                        staging,
                        digest,
                        ArtifactDigest.manifest(digest, request, plan, outcome),
                        parts);
        ArtifactStore.Artifact published =
                store.find(digest)
                        .orElseThrow(
                                () ->
                                        new IOException(
                                                "training set "
                                                        + digest
                                                        + " has no manifest after its publish"));
        return new TrainingSetResult(
                digest,
                published.data(),
                published.parts(),
                reused,
                outcome.rows(),
                outcome.partitions(),
                outcome.files(),
                outcome.statuses(),
                plan.snapshots);
    }
}
