package io.sluice.lake;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Predicate;
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
 */
public final class Publish {

    /** How long displaced sets and abandoned staging directories are kept, for inspection. */
    public static final Duration TRASH_GRACE = Duration.ofMinutes(10);

    /** Names of displaced sets in a staging directory end with this. */
    public static final String TRASH_SUFFIX = ".old";

    private Publish() {}

    /** A fresh staging directory under {@code stagingRoot}, named {@code <stem>.<uuid>}. */
    public static Path stage(Path stagingRoot, String stem) throws IOException {
        Files.createDirectories(stagingRoot);
        return Files.createDirectory(stagingRoot.resolve(stem + "." + UUID.randomUUID()));
    }

    /** Where a displaced {@code stem} goes in {@code stagingRoot}: {@code <stem>.<uuid>.old}. */
    public static Path trash(Path stagingRoot, String stem) {
        return stagingRoot.resolve(stem + "." + UUID.randomUUID() + TRASH_SUFFIX);
    }

    /**
     * Makes {@code staged} visible as {@code target}, atomically (see {@link AtomicDirectories});
     * the target's old content ends up in {@code trash}.
     *
     * @return whether an old target was displaced
     */
    public static boolean replace(Path staged, Path target, Path trash) throws IOException {
        Files.createDirectories(trash.getParent());
        return AtomicDirectories.replace(staged, target, trash);
    }

    /** Moves {@code target} out of the readers' path into {@code trash}, if it exists. */
    public static boolean retire(Path target, Path trash) throws IOException {
        if (!Files.isDirectory(target)) {
            return false;
        }
        Files.createDirectories(trash.getParent());
        Files.move(target, trash, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    /**
     * Makes {@code staged} visible as {@code target} unless {@code target} already exists, which
     * for a content-addressed result means an equal one; {@code staged} is gone afterwards either
     * way.
     *
     * @return true if this call published it, false if one was there already
     */
    public static boolean publishNew(Path staged, Path target) throws IOException {
        try {
            if (Files.exists(target)) {
                return false;
            }
            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
            return false;
        } finally {
            FileUtils.deleteDirectoryQuietly(staged.toFile());
        }
    }

    /**
     * Deletes the entries of {@code stagingRoot} that {@code whose} accepts and that were last
     * modified before {@link #TRASH_GRACE} ago.
     */
    public static void removeExpired(Path stagingRoot, Predicate<String> whose) throws IOException {
        removeExpired(stagingRoot, whose, TRASH_GRACE);
    }

    /**
     * Deletes the entries of {@code stagingRoot} that {@code whose} accepts and that were last
     * modified before {@code grace} ago.
     */
    public static void removeExpired(Path stagingRoot, Predicate<String> whose, Duration grace)
            throws IOException {
        if (!Files.isDirectory(stagingRoot)) {
            return;
        }
        long graceStart = System.currentTimeMillis() - grace.toMillis();
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(stagingRoot)) {
            for (Path leftover : leftovers) {
                if (whose.test(leftover.getFileName().toString())
                        && Files.getLastModifiedTime(leftover).toMillis() < graceStart) {
                    FileUtils.deleteDirectory(leftover.toFile());
                }
            }
        }
    }
}
