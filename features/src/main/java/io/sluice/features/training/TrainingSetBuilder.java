package io.sluice.features.training;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.Status;
import io.sluice.features.online.FeatureReader.FeatureRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
 * bucket files of the spine's entities. A training set is an immutable artifact under {@code
 * <root>/training_sets/<digest>/}, addressed by a digest of the spine's bytes, the definitions of
 * the requested features and the manifests of every warehouse hour read; a request whose digest
 * exists is answered with that artifact without recomputing.
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
     */
    public record Request(
            Path spine,
            List<FeatureRef> features,
            String timestampColumn,
            Optional<Sample> sample,
            boolean statusColumns,
            Incomplete incomplete) {

        public Request {
            if (features.isEmpty()) {
                throw new IllegalArgumentException("--features: name at least one view:feature");
            }
            features = List.copyOf(features);
            Objects.requireNonNull(incomplete, "incomplete");
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
            return new Request(spine, features, timestampColumn, sample, statusColumns, mode);
        }
    }

    /**
     * What a build did.
     *
     * @param digest the artifact's address
     * @param data the artifact's Parquet file
     * @param reused whether an existing artifact answered the request
     * @param rows rows in the training set
     * @param partitions warehouse hours the rows needed, as {@code table/dt=…/hr=…}
     * @param filesRead bucket files read (0 when reused)
     * @param statuses per {@code view:feature}, how many values had each status (empty when reused)
     */
    public record Result(
            String digest,
            Path data,
            boolean reused,
            long rows,
            List<String> partitions,
            List<Path> filesRead,
            Map<String, Map<Status, Long>> statuses) {}

    private final SluiceConfig config;
    private final Path root;
    private final int threads;

    public TrainingSetBuilder(SluiceConfig config) {
        this(config, Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    public TrainingSetBuilder(SluiceConfig config, int threads) {
        if (!"file".equals(config.rootUri().getScheme())) {
            throw new IllegalArgumentException(
                    "storage.root: the training-set builder reads a file: lake, got "
                            + config.rootUri());
        }
        this.config = config;
        this.root = Path.of(config.rootUri());
        this.threads = threads;
    }

    /** Where artifacts live: {@code <root>/training_sets}. */
    public Path artifacts() {
        return root.resolve("training_sets");
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
     *     not stored
     */
    public Result build(Request request, boolean reuse) throws IOException {
        Spine spine = Spine.read(request.spine());
        TrainingPlan plan = TrainingPlan.of(config, spine, request);
        String digest = ArtifactStore.digest(spine, request, plan);
        ArtifactStore store = new ArtifactStore(artifacts());
        if (reuse && store.exists(digest)) {
            return result(digest, store.data(digest), true, plan, List.of(), Map.of());
        }
        PointInTime.Computed computed = PointInTime.compute(config, plan, threads);
        ArtifactStore.DataWriter data =
                file ->
                        TrainingSetWriter.write(
                                spine, plan, computed, request.statusColumns(), file);
        if (!reuse) {
            Path file = Files.createTempFile("training-set-", ".parquet");
            data.write(file);
            return result(digest, file, false, plan, computed.files, computed.statuses);
        }
        boolean reused =
                store.publish(
                        digest,
                        data,
                        ArtifactStore.manifest(digest, spine, request, plan, computed));
        return result(digest, store.data(digest), reused, plan, computed.files, computed.statuses);
    }

    private static Result result(
            String digest,
            Path data,
            boolean reused,
            TrainingPlan plan,
            List<Path> files,
            Map<String, Map<Status, Long>> statuses) {
        return new Result(digest, data, reused, plan.rows.length, plan.partitions, files, statuses);
    }

    /** Copies a result's data to {@code out}, replacing it atomically. */
    public static void export(Result result, Path out) throws IOException {
        ArtifactStore.export(result.data(), out);
    }
}
