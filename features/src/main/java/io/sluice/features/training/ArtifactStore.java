package io.sluice.features.training;

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
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.util.FileUtils;

/**
 * Training sets as immutable artifacts under {@code <root>/training_sets/<digest>/}: {@code
 * training_set.parquet} and a {@code _SUCCESS} manifest, published by an atomic rename of a staging
 * directory. The digest addresses an artifact by everything its content depends on: the spine's
 * bytes, the request's options, each requested feature's definition, the manifest of every
 * warehouse hour read and, per view, which rows are marked {@code INCOMPLETE}. Its text must not
 * change, or every cached artifact is orphaned.
 */
final class ArtifactStore {

    static final String DATA = "training_set.parquet";
    static final String MANIFEST = "_SUCCESS";

    /** Writes an artifact's data file. */
    interface DataWriter {
        void write(Path file) throws IOException;
    }

    private final Path dir;

    ArtifactStore(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** The data file of artifact {@code digest} (which may not exist). */
    Path data(String digest) {
        return dir.resolve(digest).resolve(DATA);
    }

    /** Whether artifact {@code digest} is complete. */
    boolean exists(String digest) {
        return Files.isRegularFile(dir.resolve(digest).resolve(MANIFEST));
    }

    /**
     * Writes artifact {@code digest}: its data, then its manifest, published atomically.
     *
     * @return true if a concurrent request with the same inputs published it first (its artifact is
     *     kept)
     */
    boolean publish(String digest, DataWriter data, Map<String, Object> manifest)
            throws IOException {
        Path staging = Publish.stage(dir, "_staging");
        try {
            data.write(staging.resolve(DATA));
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

    /** The {@code _SUCCESS} manifest of a built artifact. */
    static Map<String, Object> manifest(
            String digest,
            Spine spine,
            TrainingSetBuilder.Request request,
            TrainingPlan plan,
            PointInTime.Computed computed) {
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("digest", digest);
        manifest.put("created", Instant.now().toString());
        manifest.put("spine", spine.file().toAbsolutePath().toString());
        manifest.put("rows", plan.rows.length);
        manifest.put("features", request.features().stream().map(Object::toString).toList());
        manifest.put("sample", request.sample().map(Sample::toString).orElse(null));
        manifest.put("incomplete", request.incomplete().name().toLowerCase(Locale.ROOT));
        manifest.put("partitions", plan.partitions);
        manifest.put("files_read", computed.files.size());
        manifest.put("statuses", computed.statuses);
        return manifest;
    }

    /** The artifact's address. */
    static String digest(Spine spine, TrainingSetBuilder.Request request, TrainingPlan plan)
            throws IOException {
        StringBuilder s = new StringBuilder("sluice-training-set v1\n");
        s.append("spine ").append(fileSha256(spine.file())).append('\n');
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
        // Rows marked INCOMPLETE (only when asked to mark them): which, per view. A request whose
        // rows are all whole gives the same text whether it marks or refuses, as the same data.
        for (TrainingPlan.View vp : plan.views) {
            StringBuilder marked = new StringBuilder();
            for (int i = 0; i < plan.rows.length; i++) {
                if (vp.keys[i] != null && vp.missing[i] != CompleteHours.NONE) {
                    marked.append(i).append(',');
                }
            }
            if (!marked.isEmpty()) {
                s.append("incomplete ")
                        .append(vp.view.name())
                        .append(' ')
                        .append(sha256(marked.toString().getBytes(StandardCharsets.UTF_8)))
                        .append('\n');
            }
        }
        return sha256(s.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Copies {@code data} to {@code out}, replacing it atomically. */
    static void export(Path data, Path out) throws IOException {
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve("." + out.getFileName() + ".tmp-" + UUID.randomUUID());
        Files.copy(data, tmp);
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
