package io.sluice.features.training;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.Publish;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Training sets as immutable artifacts under {@code <root>/training_sets/<digest>/}: part files,
 * ranges of the spine's rows in its order, and a {@code _SUCCESS} manifest. A reader ({@link
 * #find}) knows an artifact by its manifest, written last: without one there is no artifact. How
 * the parts and the manifest get there depends on the lake's file system:
 *
 * <ul>
 *   <li>On a file system, a build writes its parts into a staging directory {@code
 *       _staging.<uuid>/data/}, then the manifest beside them, and renames the directory to {@code
 *       <digest>} in one atomic step ({@link Publish#publishNew}). The parts are {@code
 *       <digest>/data/part-NNNNN.parquet}.
 *   <li>On an object store, which cannot rename, a build first writes a marker object {@code
 *       _staging.<uuid>} naming its digest and its data prefix {@code <digest>/data/<uuid>/}, a
 *       prefix of its own (a concurrent build of the same digest, perhaps at another parallelism,
 *       uploads to another one), uploads its parts there, each object whole or not at all ({@link
 *       TrainingSetWriter#write}), and then writes {@code <digest>/_SUCCESS} in one upload, naming
 *       that prefix and its parts: readers read those parts, never a listing.
 * </ul>
 *
 * <p>A build killed at any step publishes nothing, and a re-run builds the artifact. What a killed
 * build leaves (a staging directory; or a marker and the parts it uploaded) is deleted by a later
 * build once it is older than {@link #ABANDONED}; a marker whose data a manifest names (a build
 * that published) only loses the marker. Markers stay until then even after a publish: two builds
 * of one digest that both find no manifest both write one, the last wins, and the loser's parts,
 * which a reader of its manifest may still be reading, go a day later with its marker.
 *
 * <p>An artifact's address (its digest) and what its manifest records are {@link ArtifactDigest}'s.
 */
final class ArtifactStore {

    static final String DATA = "data";
    static final String MANIFEST = "_SUCCESS";
    static final String STAGING = "_staging";

    /**
     * How long what a build that never published (its process was killed) left is kept: a day,
     * longer than a build runs, so a concurrent build's is never taken for one.
     */
    static final Duration ABANDONED = Duration.ofDays(1);

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final URI dir;

    ArtifactStore(URI dir) {
        this.dir = dir;
    }

    /**
     * A published artifact.
     *
     * @param data the directory (or prefix) of its parts
     * @param parts its part files, in spine order
     * @param manifest its {@code _SUCCESS}
     */
    record Artifact(URI data, List<URI> parts, JsonNode manifest) {}

    /**
     * Where a build writes before it publishes.
     *
     * @param staging on a file system the staging directory; on an object store the marker
     * @param data where the build writes its parts
     * @param name {@code data} relative to the artifact's directory once published
     */
    record Staging(URI staging, URI data, String name) {}

    /** Whether this store publishes by renaming (a file system) or by its manifest. */
    private boolean renames() {
        return LakeFiles.supportsAtomicRename(dir);
    }

    private URI artifact(String digest) {
        return LakeFiles.resolve(dir, digest);
    }

    /** Artifact {@code digest}, if it is published. */
    Optional<Artifact> find(String digest) throws IOException {
        byte[] bytes;
        try {
            bytes = LakeFiles.read(LakeFiles.resolve(artifact(digest), MANIFEST));
        } catch (FileNotFoundException none) {
            return Optional.empty();
        }
        JsonNode manifest = JSON.readTree(bytes);
        if (renames()) {
            URI data = LakeFiles.resolve(artifact(digest), DATA);
            return Optional.of(new Artifact(data, TrainingSetJob.parts(data), manifest));
        }
        URI data = LakeFiles.resolve(artifact(digest), manifest.path("data").asText());
        List<URI> parts = new ArrayList<>();
        manifest.path("parts").forEach(p -> parts.add(LakeFiles.resolve(data, p.asText())));
        return Optional.of(new Artifact(data, List.copyOf(parts), manifest));
    }

    /**
     * A new place for a build of artifact {@code digest} to write its parts; what builds abandoned
     * more than {@link #ABANDONED} ago left is deleted first.
     */
    Staging stage(String digest) throws IOException {
        removeAbandoned(ABANDONED);
        if (renames()) {
            URI staging = Publish.stage(dir, STAGING);
            URI data = LakeFiles.resolve(staging, DATA);
            LakeFiles.mkdirs(data);
            return new Staging(staging, data, DATA);
        }
        String build = UUID.randomUUID().toString();
        URI marker = LakeFiles.resolve(dir, STAGING + "." + build);
        String data = DATA + "/" + build;
        ObjectNode content = JSON.createObjectNode();
        content.put("digest", digest);
        content.put("data", data);
        LakeFiles.write(marker, JSON.writeValueAsBytes(content));
        return new Staging(marker, LakeFiles.resolve(artifact(digest), data), data);
    }

    /**
     * Publishes a staged build of {@code digest} whose parts are {@code parts}, with {@code
     * manifest} as its {@code _SUCCESS}.
     *
     * @return true if a concurrent request with the same inputs published it first (its artifact is
     *     kept, and this build's parts are deleted)
     */
    boolean publish(Staging staging, String digest, Map<String, Object> manifest, List<URI> parts)
            throws IOException {
        if (renames()) {
            try {
                LakeFiles.write(
                        LakeFiles.resolve(staging.staging(), MANIFEST),
                        JSON.writeValueAsBytes(manifest));
            } catch (IOException | RuntimeException e) {
                discard(staging, e);
                throw e;
            }
            // Content-addressed: an artifact already there is an equal one, and it is kept.
            return !Publish.publishNew(staging.staging(), artifact(digest));
        }
        URI published = LakeFiles.resolve(artifact(digest), MANIFEST);
        try {
            if (!LakeFiles.exists(staging.staging())) {
                throw new IOException(
                        "the build's staging marker "
                                + staging.staging()
                                + " is gone: it ran longer than "
                                + ABANDONED.toHours()
                                + " hours and was taken for an abandoned build; build it again");
            }
            if (LakeFiles.exists(published)) {
                discard(staging, null);
                return true;
            }
        } catch (IOException | RuntimeException e) {
            discard(staging, e);
            throw e;
        }
        Map<String, Object> full = new LinkedHashMap<>(manifest);
        full.put("data", staging.name());
        full.put("parts", parts.stream().map(ArtifactStore::name).toList());
        // Not discarded if this fails: the upload may have happened, and its marker lets the
        // abandoned-build clean-up decide later.
        LakeFiles.write(published, JSON.writeValueAsBytes(full));
        return false;
    }

    /**
     * Deletes what a build that will not publish wrote (and on an object store its marker); a
     * failure to is added to {@code cause}, if any, and leaves it to {@link #removeAbandoned}.
     */
    void discard(Staging staging, Exception cause) {
        try {
            if (renames()) {
                LakeFiles.delete(staging.staging(), true);
            } else {
                LakeFiles.delete(staging.data(), true);
                LakeFiles.delete(staging.staging(), false);
            }
        } catch (IOException | RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
        }
    }

    /**
     * Deletes what builds that started more than {@code grace} ago and never published left: their
     * staging directories; on an object store, the parts of each marker that no manifest names, and
     * the marker.
     */
    void removeAbandoned(Duration grace) throws IOException {
        if (renames()) {
            Publish.removeExpired(dir, name -> name.startsWith(STAGING + "."), grace);
            return;
        }
        long graceStart = System.currentTimeMillis() - grace.toMillis();
        for (LakeFiles.Entry e : LakeFiles.list(dir)) {
            if (e.directory()
                    || !e.name().startsWith(STAGING + ".")
                    || e.modified() >= graceStart) {
                continue;
            }
            JsonNode marker;
            try {
                marker = JSON.readTree(LakeFiles.read(e.uri()));
            } catch (FileNotFoundException gone) {
                continue; // another build removed it
            }
            String digest = marker.path("digest").asText();
            String data = marker.path("data").asText();
            if (digest.matches("[0-9a-f]{64}") && data.matches(DATA + "/[0-9a-f-]{36}")) {
                boolean live =
                        find(digest)
                                .map(a -> data.equals(a.manifest().path("data").asText()))
                                .orElse(false);
                if (!live) {
                    LakeFiles.delete(LakeFiles.resolve(artifact(digest), data), true);
                }
            }
            LakeFiles.delete(e.uri(), false);
        }
    }

    /** The last segment of a lake location's path. */
    static String name(URI location) {
        return new org.apache.flink.core.fs.Path(location).getName();
    }
}
