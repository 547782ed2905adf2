package io.sluice.features.training;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.Status;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.lake.LakeFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Point-in-time-correct training sets: for each spine row {@code (e, t, labels…)}, every requested
 * feature as {@code value(f, e, t)}, computed by the shared library ({@link
 * io.sluice.features.agg.Windows}) from the warehouse's events, the same code that serves them
 * online. The entry point composes the parts: {@link TrainingPlan} (which rows, hours and buckets),
 * {@link PointInTime} (the values, per view and bucket), {@link TrainingSetWriter} (the Parquet
 * file) and {@link ArtifactStore} (the digest-addressed cache).
 *
 * <p>A request may join views of several entities (a user view and an item view): each view reads
 * the spine's column named as its entity, and a row whose key there is null or empty is {@link
 * Status#NOT_FOUND} in that view. A row the warehouse cannot answer whole for a view (see {@link
 * Incomplete}) is refused or {@link Status#INCOMPLETE}, never answered from part of the data.
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

    /**
     * What to do with a spine row the warehouse cannot answer whole for a view: its time is later
     * than the end of the last complete, compacted hour of the view's source table, or its window
     * (or the view's retention, which decides {@link Status#NOT_FOUND}) needs an hour whose landing
     * is open or that is not compacted from its current landing. Such a row is never answered as if
     * the data were whole.
     */
    public enum Incomplete {
        /**
         * Fail the whole request, naming how many rows, the first few and the hours (the default:
         * nulls for recent rows would look like missing data to a model, and would be there only
         * because the lake had not caught up, so a user decides knowingly to keep them).
         */
        REFUSE,
        /**
         * Keep the rows: every feature of each view they cannot be answered in is null, with status
         * {@link Status#INCOMPLETE}; their other views, and every other row, are computed as ever.
         */
        MARK
    }

    /**
     * A request.
     *
     * @param spine a Parquet or CSV file of (entity, timestamp, labels…)
     * @param features {@code view:feature}, in output order; their views may be of several
     *     entities, each read from the spine's column named as the entity
     * @param timestampColumn the spine's time column
     * @param sample an entity sample, if any (of the first feature's view's entities)
     * @param statusColumns whether to add {@code <view>__<feature>__status} after the features
     * @param incomplete what to do with rows the warehouse cannot answer whole
     * @param snapshots per table name, the Iceberg snapshot to read it as of (a table not named is
     *     read as it is now)
     */
    public record Request(
            Path spine,
            List<FeatureRef> features,
            String timestampColumn,
            Optional<Sample> sample,
            boolean statusColumns,
            Incomplete incomplete,
            Map<String, Long> snapshots) {

        public Request {
            if (features.isEmpty()) {
                throw new IllegalArgumentException("--features: name at least one view:feature");
            }
            features = List.copyOf(features);
            Objects.requireNonNull(incomplete, "incomplete");
            snapshots = Map.copyOf(snapshots);
        }

        /** A request reading every table as it is now. */
        public Request(
                Path spine,
                List<FeatureRef> features,
                String timestampColumn,
                Optional<Sample> sample,
                boolean statusColumns,
                Incomplete incomplete) {
            this(spine, features, timestampColumn, sample, statusColumns, incomplete, Map.of());
        }

        /** A request that refuses rows the warehouse cannot answer whole. */
        public Request(
                Path spine,
                List<FeatureRef> features,
                String timestampColumn,
                Optional<Sample> sample,
                boolean statusColumns) {
            this(spine, features, timestampColumn, sample, statusColumns, Incomplete.REFUSE);
        }

        public static Request of(Path spine, List<FeatureRef> features) {
            return new Request(spine, features, TIMESTAMP_COLUMN, Optional.empty(), false);
        }

        /** This request with {@code mode} for rows the warehouse cannot answer whole. */
        public Request withIncomplete(Incomplete mode) {
            return new Request(
                    spine, features, timestampColumn, sample, statusColumns, mode, snapshots);
        }

        /** This request reading each named table as of the given Iceberg snapshot. */
        public Request asOf(Map<String, Long> pins) {
            return new Request(
                    spine, features, timestampColumn, sample, statusColumns, incomplete, pins);
        }
    }

    /**
     * What a build did.
     *
     * @param digest the artifact's address
     * @param data the artifact's directory (on an object store, prefix) of Parquet part files,
     *     ranges of the spine's rows in its order ({@link #glob})
     * @param parts the part files, in spine order
     * @param reused whether an existing artifact answered the request
     * @param rows rows in the training set
     * @param partitions warehouse hours read, as {@code table/dt=…/hr=…} (when reused: those the
     *     spine's time range could read)
     * @param filesRead bucket files read (0 when reused)
     * @param statuses per {@code view:feature}, how many values had each status (empty when reused)
     * @param snapshots per table read, the Iceberg snapshot its files came from (empty without a
     *     catalog)
     */
    public record Result(
            String digest,
            URI data,
            List<URI> parts,
            boolean reused,
            long rows,
            List<String> partitions,
            List<URI> filesRead,
            Map<String, Map<Status, Long>> statuses,
            Map<String, Long> snapshots) {

        /**
         * A glob of the part files, for readers such as DuckDB ({@code read_parquet(glob)}): a
         * local path on a {@code file:} lake, else a URI.
         */
        public String glob() {
            return "file".equals(data.getScheme())
                    ? Path.of(data).resolve("*.parquet").toString()
                    : data.toString().replaceAll("/$", "") + "/*.parquet";
        }
    }

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
    public Result build(Request request) throws IOException {
        return build(request, true);
    }

    /**
     * @param reuse false to compute even when the artifact exists (benchmarks); the result is then
     *     not published, and its parts are the caller's to delete: on a file system their staging
     *     directory, {@code data}'s parent; on an object store {@code data}, which the clean-up of
     *     abandoned builds also deletes a day later
     */
    public Result build(Request request, boolean reuse) throws IOException {
        TrainingPlan plan = TrainingPlan.of(config, request);
        String digest = ArtifactStore.digest(request, plan);
        ArtifactStore store = new ArtifactStore(artifacts());
        Optional<ArtifactStore.Artifact> found = reuse ? store.find(digest) : Optional.empty();
        if (found.isPresent()) {
            JsonNode manifest = found.get().manifest();
            long incomplete = manifest.path("incomplete_rows").asLong();
            if (request.incomplete() == Incomplete.REFUSE && incomplete > 0) {
                throw new IncompleteDataException(manifest.path("refusal").asText(), incomplete);
            }
            return new Result(
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
            if (request.incomplete() == Incomplete.REFUSE && !outcome.incomplete().isEmpty()) {
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
            return new Result(
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
                        ArtifactStore.manifest(digest, request, plan, outcome),
                        parts);
        ArtifactStore.Artifact published =
                store.find(digest)
                        .orElseThrow(
                                () ->
                                        new IOException(
                                                "training set "
                                                        + digest
                                                        + " has no manifest after its publish"));
        return new Result(
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

    /**
     * Writes a result, read from the lake, to the local {@code out}: a directory (an existing one,
     * or a path ending in {@code /}) gets its part files, replacing the parts already there; a file
     * gets them all as one Parquet file, replacing it atomically.
     */
    public static void export(Result result, Path out, boolean directory) throws IOException {
        List<URI> parts = result.parts();
        if (directory) {
            Files.createDirectories(out);
            try (var old = Files.list(out)) {
                for (Path p :
                        old.filter(f -> f.getFileName().toString().startsWith("part-")).toList()) {
                    Files.delete(p);
                }
            }
            for (URI part : parts) {
                try (InputStream in = LakeFiles.open(part)) {
                    Files.copy(in, out.resolve(ArtifactStore.name(part)));
                }
            }
            return;
        }
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve("." + out.getFileName() + ".tmp-" + UUID.randomUUID());
        try {
            TrainingSetWriter.concat(parts, tmp);
            Files.move(
                    tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
