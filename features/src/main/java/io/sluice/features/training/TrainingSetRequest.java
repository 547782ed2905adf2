package io.sluice.features.training;

import io.sluice.features.agg.Status;
import io.sluice.features.online.FeatureReader.FeatureRef;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A request for a training set ({@link TrainingSetBuilder#build}).
 *
 * @param spine a Parquet or CSV file of (entity, timestamp, labels…)
 * @param features {@code view:feature}, in output order; their views may be of several entities,
 *     each read from the spine's column named as the entity
 * @param timestampColumn the spine's time column
 * @param sample an entity sample, if any (of the first feature's view's entities)
 * @param statusColumns whether to add {@code <view>__<feature>__status} after the features
 * @param incomplete what to do with rows the warehouse cannot answer whole
 * @param snapshots per table name, the Iceberg snapshot to read it as of (a table not named is read
 *     as it is now)
 */
public record TrainingSetRequest(
        Path spine,
        List<FeatureRef> features,
        String timestampColumn,
        Optional<Sample> sample,
        boolean statusColumns,
        Incomplete incomplete,
        Map<String, Long> snapshots) {

    public TrainingSetRequest {
        if (features.isEmpty()) {
            throw new IllegalArgumentException("--features: name at least one view:feature");
        }
        features = List.copyOf(features);
        Objects.requireNonNull(incomplete, "incomplete");
        snapshots = Map.copyOf(snapshots);
    }

    /** A request reading every table as it is now. */
    public TrainingSetRequest(
            Path spine,
            List<FeatureRef> features,
            String timestampColumn,
            Optional<Sample> sample,
            boolean statusColumns,
            Incomplete incomplete) {
        this(spine, features, timestampColumn, sample, statusColumns, incomplete, Map.of());
    }

    /** A request that refuses rows the warehouse cannot answer whole. */
    public TrainingSetRequest(
            Path spine,
            List<FeatureRef> features,
            String timestampColumn,
            Optional<Sample> sample,
            boolean statusColumns) {
        this(spine, features, timestampColumn, sample, statusColumns, Incomplete.REFUSE);
    }

    public static TrainingSetRequest of(Path spine, List<FeatureRef> features) {
        return new TrainingSetRequest(
                spine, features, TrainingSetBuilder.TIMESTAMP_COLUMN, Optional.empty(), false);
    }

    /** This request with {@code mode} for rows the warehouse cannot answer whole. */
    public TrainingSetRequest withIncomplete(Incomplete mode) {
        return new TrainingSetRequest(
                spine, features, timestampColumn, sample, statusColumns, mode, snapshots);
    }

    /** This request reading each named table as of the given Iceberg snapshot. */
    public TrainingSetRequest asOf(Map<String, Long> pins) {
        return new TrainingSetRequest(
                spine, features, timestampColumn, sample, statusColumns, incomplete, pins);
    }

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
}
