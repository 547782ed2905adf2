package io.sluice.features.training;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.Publish;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.util.FileUtils;

/**
 * Training sets as immutable artifacts under {@code <root>/training_sets/<digest>/}: {@code
 * data/part-NNNNN.parquet}, ranges of the spine's rows in its order, and a {@code _SUCCESS}
 * manifest, published by an atomic rename of a staging directory. The digest addresses an artifact
 * by everything its content depends on: the spine's bytes, the request's options, each requested
 * feature's definition, the manifest of every warehouse hour the spine's time range can read and,
 * per view's table, what of that range is not whole (which decides the rows marked {@code
 * INCOMPLETE}). Its text must not change, or every cached artifact is orphaned.
 */
final class ArtifactStore {

    static final String DATA = "data";
    static final String MANIFEST = "_SUCCESS";
    static final String STAGING = "_staging";

    private final Path dir;

    ArtifactStore(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** The part files' directory of artifact {@code digest} (which may not exist). */
    Path data(String digest) {
        return dir.resolve(digest).resolve(DATA);
    }

    /** Whether artifact {@code digest} is complete. */
    boolean exists(String digest) {
        return Files.isRegularFile(dir.resolve(digest).resolve(MANIFEST));
    }

    /**
     * How long the staging directory of a build that never published (its process was killed) is
     * kept: a day, longer than a build runs, so a concurrent build's is never taken for one.
     */
    static final java.time.Duration ABANDONED = java.time.Duration.ofDays(1);

    /**
     * A new staging directory for an artifact, with an empty {@link #DATA} directory; staging
     * directories abandoned more than {@link #ABANDONED} ago are deleted first.
     */
    Path stage() throws IOException {
        Publish.removeExpired(dir, name -> name.startsWith(STAGING + "."), ABANDONED);
        Path staging = Publish.stage(dir, STAGING);
        Files.createDirectory(staging.resolve(DATA));
        return staging;
    }

    /**
     * Publishes a staged artifact as {@code digest} after writing its manifest, atomically.
     *
     * @return true if a concurrent request with the same inputs published it first (its artifact is
     *     kept)
     */
    boolean publish(Path staging, String digest, Map<String, Object> manifest) throws IOException {
        try {
            new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValue(staging.resolve(MANIFEST).toFile(), manifest);
        } catch (IOException | RuntimeException e) {
            FileUtils.deleteDirectoryQuietly(staging.toFile());
            throw e;
        }
        // Content-addressed: an artifact already there is an equal one, and it is kept.
        return !Publish.publishNew(staging, dir.resolve(digest));
    }

    /** The manifest of artifact {@code digest}. */
    JsonNode manifest(String digest) throws IOException {
        return new ObjectMapper().readTree(dir.resolve(digest).resolve(MANIFEST).toFile());
    }

    /** The {@code _SUCCESS} manifest of a built artifact. */
    static Map<String, Object> manifest(
            String digest,
            TrainingSetBuilder.Request request,
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
    static String digest(TrainingSetBuilder.Request request, TrainingPlan plan) throws IOException {
        StringBuilder s = new StringBuilder("sluice-training-set v2\n");
        s.append("spine ").append(fileSha256(request.spine())).append('\n');
        s.append("timestamp_column ").append(request.timestampColumn()).append('\n');
        s.append("sample ")
                .append(request.sample().map(Sample::toString).orElse("none"))
                .append('\n');
        s.append("status_columns ").append(request.statusColumns()).append('\n');
        for (FeatureRefs.Resolved r : plan.features) {
            TrainingPlan.View vp = plan.view(r.ref().view());
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
        plan.manifests.forEach(m -> s.append("hour ").append(m).append('\n'));
        // What decides the rows marked INCOMPLETE: per view, the end of its table's whole hours
        // and the hours of the range that are not whole. A request whose rows are all whole gives
        // the same text whether it marks or refuses them, as the same data.
        for (TrainingPlan.View vp : plan.views) {
            s.append("coverage ")
                    .append(vp.view.name())
                    .append(" until=")
                    .append(vp.coverage.until() < vp.last ? vp.coverage.until() : "after")
                    .append(" not_whole=")
                    .append(vp.coverage.notWhole().subMap(vp.first, vp.last))
                    .append('\n');
        }
        return sha256(s.toString().getBytes(StandardCharsets.UTF_8));
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static String fileSha256(Path file) throws IOException {
        MessageDigest md = sha256();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
