package io.sluice.features.training;

import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a training-set artifact is, apart from where it is kept ({@link ArtifactStore}): its
 * address, the digest, and what its {@code _SUCCESS} manifest records.
 *
 * <p>The digest addresses an artifact by everything its content depends on: the spine's bytes, the
 * request's options, each requested feature's definition, the manifest of every warehouse hour the
 * spine's time range can read and, per view's table, what of that range is not whole (which decides
 * the rows marked {@code INCOMPLETE}). Its text must not change, or every cached artifact is
 * orphaned.
 */
final class ArtifactDigest {

    private ArtifactDigest() {}

    /** The {@code _SUCCESS} manifest of a built artifact. */
    static Map<String, Object> manifest(
            String digest,
            TrainingSetRequest request,
            TrainingPlan plan,
            TrainingSetJob.Outcome outcome) {
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("digest", digest);
        manifest.put("created", Instant.now().toString());
        manifest.put("spine", request.spine().toAbsolutePath().toString());
        manifest.put("rows", outcome.rows());
        manifest.put("features", request.features().stream().map(Object::toString).toList());
        manifest.put("sample", request.sample().map(Sample::toString).orElse(null));
        manifest.put("incomplete", request.incomplete().name().toLowerCase(Locale.ROOT));
        manifest.put("snapshots", plan.snapshots);
        manifest.put("partitions", outcome.partitions());
        manifest.put("files_read", outcome.files().size());
        manifest.put("statuses", outcome.statuses());
        // A request that refuses incomplete rows is refused by this artifact as by a build.
        manifest.put("incomplete_rows", outcome.incompleteRows());
        if (outcome.incompleteRows() > 0) {
            manifest.put("refusal", plan.refusal(outcome));
        }
        return manifest;
    }

    /** The artifact's address. */
    static String of(TrainingSetRequest request, TrainingPlan plan) throws IOException {
        StringBuilder s = new StringBuilder("sluice-training-set v3\n");
        s.append("spine ").append(Sha256.hex(request.spine())).append('\n');
        s.append("timestamp_column ").append(request.timestampColumn()).append('\n');
        s.append("sample ")
                .append(request.sample().map(Sample::toString).orElse("none"))
                .append('\n');
        s.append("status_columns ").append(request.statusColumns()).append('\n');
        for (FeatureRefs.Resolved r : plan.features) {
            PlannedView vp = plan.view(r.ref().view());
            FeatureDef f = r.feature();
            s.append(
                    String.format(
                            "feature %s tile=%d coarse=%d ttl=%d agg=%s field=%s window=%d type=%s"
                                    + " table=%s key=%s id=%s time=%s buckets=%d%n",
                            r.ref(),
                            vp.view.tileMillis(),
                            vp.view.coarseMillis(),
                            vp.view.ttlMillis(),
                            f.agg(),
                            f.valueIndex() < 0 ? "" : vp.view.fields().get(f.valueIndex()),
                            f.windowMillis(),
                            f.type(),
                            vp.table.name(),
                            vp.table.key(),
                            vp.table.id(),
                            vp.table.eventTime(),
                            vp.table.buckets()));
        }
        // The table's version read (its Iceberg snapshot), then each hour's files in it.
        plan.snapshots.forEach(
                (table, id) ->
                        s.append("snapshot ").append(table).append(' ').append(id).append('\n'));
        plan.manifests.forEach(m -> s.append("hour ").append(m).append('\n'));
        // What decides the rows marked INCOMPLETE: per view, the end of its table's whole hours
        // and the hours of the range that are not whole. A request whose rows are all whole gives
        // the same text whether it marks or refuses them, as the same data.
        for (PlannedView vp : plan.views) {
            s.append("coverage ")
                    .append(vp.view.name())
                    .append(" until=")
                    .append(vp.coverage.until() < vp.last ? vp.coverage.until() : "after")
                    .append(" not_whole=")
                    .append(vp.coverage.notWhole().subMap(vp.first, vp.last))
                    .append('\n');
        }
        return Sha256.hex(s.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The SHA-256 of an hour's files as read: each one's name, bucket, rows and bytes (names carry
     * a digest of their content), so the same hour on any lake gives the same text.
     */
    static String sha256(List<WarehouseSnapshot.File> files) {
        StringBuilder s = new StringBuilder();
        for (WarehouseSnapshot.File f : files) {
            s.append(f.name())
                    .append(' ')
                    .append(f.bucket())
                    .append(' ')
                    .append(f.rows())
                    .append(' ')
                    .append(f.bytes())
                    .append('\n');
        }
        return Sha256.hex(s.toString().getBytes(StandardCharsets.UTF_8));
    }
}
