package io.sluice.lake;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.flink.util.FileUtils;

/**
 * The lake's one way to make a directory of results visible: build it in a staging directory
 * outside every reader's path, then publish it in one step. Compaction (a warehouse hour), the
 * feature log backfill (a log hour) and training-set artifacts all publish through here.
 *
 * <ul>
 *   <li>{@link #replace}: the staged set takes the target's place in one atomic exchange; what the
 *       target held moves to the trash, outside the readers' path.
 *   <li>{@link #retire}: the target moves to the trash (an hour that has no rows any more).
 *   <li>{@link #publishNew}: for content-addressed results, the staged set becomes the target
 *       unless an equal one got there first.
 *   <li>{@link #removeExpired}: trash and staging older than {@link #TRASH_GRACE} are deleted; a
 *       crash at any step leaves only such leftovers, never a half-published target.
 * </ul>
 *
 * <p>These steps need a file system's atomic rename ({@code file:} lakes); on an object store
 * {@link ManifestPublish} gives the same guarantee through a manifest, and {@link Publication}
 * picks the one the lake's store supports.
 */
public final class Publish {

    /** How long displaced sets and abandoned staging directories are kept, for inspection. */
    public static final Duration TRASH_GRACE = Duration.ofMinutes(10);

    /** Names of displaced sets in a staging directory end with this. */
    public static final String TRASH_SUFFIX = ".old";

    private Publish() {}

    /** A fresh staging directory under {@code stagingRoot}, named {@code <stem>.<uuid>}. */
    public static URI stage(URI stagingRoot, String stem) throws IOException {
        Path root = local(stagingRoot);
        Files.createDirectories(root);
        return Files.createDirectory(root.resolve(stem + "." + UUID.randomUUID())).toUri();
    }

    /** Where a displaced {@code stem} goes in {@code stagingRoot}: {@code <stem>.<uuid>.old}. */
    public static URI trash(URI stagingRoot, String stem) {
        return LakeFiles.resolve(stagingRoot, stem + "." + UUID.randomUUID() + TRASH_SUFFIX);
    }

    /**
     * Makes {@code staged} visible as {@code target}, atomically (see {@link AtomicDirectories});
     * the target's old content ends up in {@code trash}.
     *
     * @return whether an old target was displaced
     */
    public static boolean replace(URI staged, URI target, URI trash) throws IOException {
        Files.createDirectories(local(trash).getParent());
        syncTree(local(staged));
        boolean displaced = AtomicDirectories.replace(local(staged), local(target), local(trash));
        syncDirectory(local(target).getParent());
        return displaced;
    }

    /**
     * Puts every file under {@code dir}, and the directories themselves, on disk before they are
     * published. Without it the rename that publishes them can reach the disk before their contents
     * do (a file system with delayed allocation, as ext4, writes a new file's data later), and a
     * power loss or an OS crash would leave a published set of empty or truncated files. One sync
     * per file: a warehouse hour has 16 bucket files and a manifest.
     */
    static void syncTree(Path dir) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(dir)) {
            paths = walk.toList();
        }
        for (Path path : paths) {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                syncDirectory(path);
            } else if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                try (FileChannel file = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    file.force(true);
                }
            }
        }
    }

    /**
     * Puts {@code dir}'s entries (its files' names) on disk. Linux and macOS sync a directory
     * opened for reading; where a directory cannot be opened (Windows), its entries are left to the
     * file system.
     */
    static void syncDirectory(Path dir) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException cannotOpenADirectory) {
            return;
        }
        try (channel) {
            channel.force(true);
        }
    }

    /** Moves {@code target} out of the readers' path into {@code trash}, if it exists. */
    public static boolean retire(URI target, URI trash) throws IOException {
        Path dir = local(target);
        if (!Files.isDirectory(dir)) {
            return false;
        }
        Files.createDirectories(local(trash).getParent());
        Files.move(dir, local(trash), StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    /**
     * Makes {@code staged} visible as {@code target} unless {@code target} already exists, which
     * for a content-addressed result means an equal one; {@code staged} is gone afterwards either
     * way.
     *
     * @return true if this call published it, false if one was there already
     */
    public static boolean publishNew(URI staged, URI target) throws IOException {
        Path from = local(staged);
        try {
            if (Files.exists(local(target))) {
                return false;
            }
            syncTree(from);
            Files.move(from, local(target), StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(local(target).getParent());
            return true;
        } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
            return false;
        } finally {
            FileUtils.deleteDirectoryQuietly(from.toFile());
        }
    }

    /**
     * Deletes the entries of {@code stagingRoot} that {@code whose} accepts and that were last
     * modified before {@link #TRASH_GRACE} ago.
     */
    public static void removeExpired(URI stagingRoot, Predicate<String> whose) throws IOException {
        removeExpired(stagingRoot, whose, TRASH_GRACE);
    }

    /**
     * Deletes the entries of {@code stagingRoot} that {@code whose} accepts and that were last
     * modified before {@code grace} ago.
     */
    public static void removeExpired(URI stagingRoot, Predicate<String> whose, Duration grace)
            throws IOException {
        Path root = local(stagingRoot);
        if (!Files.isDirectory(root)) {
            return;
        }
        long graceStart = System.currentTimeMillis() - grace.toMillis();
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(root)) {
            for (Path leftover : leftovers) {
                if (whose.test(leftover.getFileName().toString())
                        && Files.getLastModifiedTime(leftover).toMillis() < graceStart) {
                    FileUtils.deleteDirectory(leftover.toFile());
                }
            }
        }
    }

    /**
     * The local directory of a {@code file:} lake location: only a file system renames a directory
     * atomically, so every step here needs one.
     */
    static Path local(URI location) {
        if (!LakeFiles.supportsAtomicRename(location)) {
            throw new IllegalArgumentException(
                    location
                            + " is on an object store, which cannot rename a directory atomically");
        }
        return location.getScheme() == null ? Path.of(location.getPath()) : Path.of(location);
    }
}
