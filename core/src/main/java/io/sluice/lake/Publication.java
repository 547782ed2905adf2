package io.sluice.lake;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.util.FileUtils;

/**
 * One directory of results on its way into the lake (a warehouse hour), published whole with a
 * manifest, in the form the lake's store supports. The caller writes each file into {@link
 * #scratch()}, a local directory, hands its name to {@link #add} once it is complete, and ends with
 * {@link #publish}:
 *
 * <ul>
 *   <li>on a file system the scratch directory is a staging directory beside the target, and the
 *       publish swaps it in atomically ({@link Publish#replace});
 *   <li>on an object store the scratch directory is a local temporary one; {@link #add} uploads the
 *       file at once under its name (which should carry a digest of its content), and the publish
 *       writes the manifest last ({@link ManifestPublish}).
 * </ul>
 *
 * <p>Either way a reader of the target's manifest sees the old version or the new one, never a mix,
 * and a crash at any step leaves the old one readable. One publication of a target runs at a time
 * (compaction keys its work by hour): starting one removes what a crashed one left in staging.
 * Closing a publication that was not published deletes its scratch directory.
 */
public abstract sealed class Publication implements Closeable {

    final URI target;
    final URI stagingRoot;
    final String stem;
    final Path scratch;

    private Publication(URI target, URI stagingRoot, String stem, Path scratch) {
        this.target = target;
        this.stagingRoot = stagingRoot;
        this.stem = stem;
        this.scratch = scratch;
    }

    /**
     * Begins publishing {@code target}.
     *
     * @param stagingRoot the lake's staging area for this kind of result, outside every reader's
     *     path
     * @param stem names this target's entries in {@code stagingRoot}
     */
    public static Publication begin(URI target, URI stagingRoot, String stem) throws IOException {
        return LakeFiles.supportsAtomicRename(target)
                ? Swap.open(target, stagingRoot, stem)
                : Upload.open(target, stagingRoot, stem);
    }

    /** The local directory to write the files in. */
    public Path scratch() {
        return scratch;
    }

    /** Hands over {@code scratch()/name}, complete; safe to call from several threads. */
    public abstract void add(String name) throws IOException;

    /**
     * Writes {@code manifest} as the target's {@code manifestName} and makes the new set visible.
     */
    public abstract void publish(String manifestName, byte[] manifest) throws IOException;

    /** Deletes the scratch directory: what is left of it after a publish, or all of it. */
    @Override
    public void close() {
        FileUtils.deleteDirectoryQuietly(scratch.toFile());
    }

    /** A file system: stage beside the target, swap atomically. */
    private static final class Swap extends Publication {

        private Swap(URI target, URI stagingRoot, String stem, Path scratch) {
            super(target, stagingRoot, stem, scratch);
        }

        static Swap open(URI target, URI stagingRoot, String stem) throws IOException {
            Path staging = Publish.local(stagingRoot);
            removeCrashedRuns(staging, stem);
            Publish.removeExpired(stagingRoot, name -> name.endsWith(Publish.TRASH_SUFFIX));
            URI dir = Publish.stage(stagingRoot, stem);
            return new Swap(target, stagingRoot, stem, Publish.local(dir));
        }

        @Override
        public void add(String name) {
            // Already where the swap takes it from.
        }

        @Override
        public void publish(String manifestName, byte[] manifest) throws IOException {
            Files.write(scratch.resolve(manifestName), manifest);
            // The displaced set stays in the staging area for a grace period, for inspection.
            // Readers that opened its files keep reading them; a reader that only listed the old
            // directory finds changed files gone (the README says so): no name in the target can
            // reach the old set without a listing seeing a mix.
            Publish.replace(scratch.toUri(), target, Publish.trash(stagingRoot, stem));
        }

        /** Staging directories of this stem a crashed run left (displaced sets are kept). */
        private static void removeCrashedRuns(Path staging, String stem) throws IOException {
            if (!Files.isDirectory(staging)) {
                return;
            }
            try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(staging, stem + ".*")) {
                for (Path leftover : leftovers) {
                    if (!leftover.getFileName().toString().endsWith(Publish.TRASH_SUFFIX)) {
                        FileUtils.deleteDirectory(leftover.toFile());
                    }
                }
            }
        }
    }

    /** An object store: upload each file as it is done, the manifest last. */
    private static final class Upload extends Publication {

        private final Set<String> uploaded = ConcurrentHashMap.newKeySet();

        private Upload(URI target, URI stagingRoot, String stem, Path scratch) {
            super(target, stagingRoot, stem, scratch);
        }

        static Upload open(URI target, URI stagingRoot, String stem) throws IOException {
            ManifestPublish.removeExpired(stagingRoot, Publish.TRASH_GRACE);
            return new Upload(
                    target, stagingRoot, stem, Files.createTempDirectory("sluice-publish-"));
        }

        /**
         * Uploads the file, replacing an object of its name: a name that carries a digest of the
         * content is there only from an earlier run that wrote the same bytes.
         */
        @Override
        public void add(String name) throws IOException {
            Path file = scratch.resolve(name);
            URI object = LakeFiles.resolve(target, name);
            // Not asking first whether it is there: that is a HEAD and a LIST for every file of
            // every publication, to save one upload when a publication is retried.
            LakeFiles.upload(file, object);
            Files.delete(file);
            uploaded.add(name);
        }

        @Override
        public void publish(String manifestName, byte[] manifest) throws IOException {
            ManifestPublish.publish(target, manifestName, manifest, uploaded, stagingRoot, stem);
        }
    }
}
