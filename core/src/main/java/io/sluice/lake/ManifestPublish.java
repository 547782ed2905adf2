package io.sluice.lake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Publishing a directory of results where nothing can be renamed atomically: an object store. It is
 * the object-store form of {@link Publish#replace}, with the same guarantee for Sluice's own
 * readers, which find a directory's files through its manifest:
 *
 * <ol>
 *   <li>the caller uploads the new files under their final names, which carry a digest of their
 *       content, so a new version never overwrites a file an old manifest lists (and a re-run after
 *       a crash writes the same names again);
 *   <li>{@link #publish} writes the manifest last, in one upload, naming exactly the new files: a
 *       reader of the manifest sees the old version or the new one, never a mix;
 *   <li>the files of the directory the new manifest does not list (the old version's, or a crashed
 *       run's) are not deleted at once, since a reader may have read the old manifest and not yet
 *       opened its files: a tombstone in the staging area names them, and {@link #removeExpired}
 *       deletes them once it is older than the grace period.
 * </ol>
 *
 * <p>A crash at any step leaves the old manifest in place, naming the old files, which are still
 * there; the next run publishes again. A reader that lists the directory instead of reading the
 * manifest (a glob) sees the new files next to the old ones until they are deleted: the README says
 * so.
 */
public final class ManifestPublish {

    /** Tombstones in a staging area end with this, as displaced sets do on a file system. */
    public static final String TOMBSTONE_SUFFIX = Publish.TRASH_SUFFIX;

    private static final ObjectMapper JSON = new ObjectMapper();

    private ManifestPublish() {}

    /**
     * Writes {@code manifest} as {@code dir/manifestName}, then leaves a tombstone in {@code
     * stagingRoot} for the files of {@code dir} that are neither the manifest nor in {@code
     * listed}.
     *
     * @param stem names the tombstone, {@code <stem>.<uuid>.old}
     * @return the names of the files left for {@link #removeExpired}
     */
    public static List<String> publish(
            URI dir,
            String manifestName,
            byte[] manifest,
            Set<String> listed,
            URI stagingRoot,
            String stem)
            throws IOException {
        LakeFiles.write(LakeFiles.resolve(dir, manifestName), manifest);
        List<String> superseded = new ArrayList<>();
        for (LakeFiles.Entry e : LakeFiles.list(dir)) {
            if (!e.directory() && !e.name().equals(manifestName) && !listed.contains(e.name())) {
                superseded.add(e.name());
            }
        }
        if (!superseded.isEmpty()) {
            ObjectNode tombstone = JSON.createObjectNode();
            tombstone.put("dir", dir.toString());
            tombstone.put("manifest", manifestName);
            superseded.forEach(tombstone.putArray("files")::add);
            LakeFiles.write(
                    LakeFiles.resolve(
                            stagingRoot, stem + "." + UUID.randomUUID() + TOMBSTONE_SUFFIX),
                    JSON.writeValueAsBytes(tombstone));
        }
        return superseded;
    }

    /**
     * Deletes the files named by the tombstones in {@code stagingRoot} that are older than {@code
     * grace}, and the tombstones. A file that the directory's manifest lists again by then (an
     * equal result published since) is kept.
     */
    public static void removeExpired(URI stagingRoot, Duration grace) throws IOException {
        long graceStart = System.currentTimeMillis() - grace.toMillis();
        for (LakeFiles.Entry e : LakeFiles.list(stagingRoot)) {
            if (e.directory()
                    || !e.name().endsWith(TOMBSTONE_SUFFIX)
                    || e.modified() >= graceStart) {
                continue;
            }
            JsonNode tombstone;
            try {
                tombstone = JSON.readTree(LakeFiles.read(e.uri()));
            } catch (FileNotFoundException gone) {
                continue; // another run removed it
            }
            URI dir = URI.create(tombstone.path("dir").asText());
            Set<String> current = listed(dir, tombstone.path("manifest").asText());
            for (JsonNode name : tombstone.path("files")) {
                if (!current.contains(name.asText())) {
                    LakeFiles.delete(LakeFiles.resolve(dir, name.asText()), false);
                }
            }
            LakeFiles.delete(e.uri(), false);
        }
    }

    /** The file names the directory's manifest lists now, if it has one. */
    private static Set<String> listed(URI dir, String manifestName) throws IOException {
        try {
            Set<String> names = new java.util.HashSet<>();
            JSON.readTree(LakeFiles.read(LakeFiles.resolve(dir, manifestName)))
                    .path("files")
                    .forEach(f -> names.add(f.path("name").asText()));
            return names;
        } catch (FileNotFoundException none) {
            return Set.of();
        }
    }
}
