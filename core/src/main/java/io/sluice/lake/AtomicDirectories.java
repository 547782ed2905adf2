package io.sluice.lake;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces a directory by another in one atomic step, so that a reader of the target sees either
 * the whole old content or the whole new one.
 *
 * <p>A rename cannot replace a non-empty directory, and Java has no call that swaps two. On Linux
 * {@code renameat2(..., RENAME_EXCHANGE)} does exactly that; it is reached through JNA. Where it is
 * missing (macOS, an old kernel, a file system without support) the fallback is two renames, which
 * leave the target briefly absent (never mixed); that is logged once.
 */
public final class AtomicDirectories {

    private static final Logger LOG = LoggerFactory.getLogger(AtomicDirectories.class);
    private static final int AT_FDCWD = -100;
    private static final int RENAME_EXCHANGE = 2;

    private static volatile boolean exchangeUnavailable;

    private AtomicDirectories() {}

    /** glibc's {@code renameat2}. */
    private interface CLibrary extends Library {
        int renameat2(int olddirfd, String oldpath, int newdirfd, String newpath, int flags)
                throws LastErrorException;
    }

    private static final class Holder {
        static final CLibrary C = load();

        private static CLibrary load() {
            try {
                return Native.load("c", CLibrary.class);
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                return null;
            }
        }
    }

    /**
     * Makes {@code staging} visible as {@code target}. If {@code target} exists, its old content
     * ends up in {@code staging}'s place and is deleted by the caller-provided {@code trash}
     * directory path: afterwards {@code trash} holds the old content, or does not exist.
     *
     * @return true if an old target was displaced into {@code trash}
     */
    public static boolean replace(Path staging, Path target, Path trash) throws IOException {
        Files.createDirectories(target.getParent());
        if (!Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                return false;
            } catch (java.nio.file.FileAlreadyExistsException
                    | java.nio.file.DirectoryNotEmptyException raced) {
                // Someone published the target meanwhile: fall through to the exchange.
            }
        }
        if (exchange(staging, target)) {
            Files.move(staging, trash, StandardCopyOption.ATOMIC_MOVE);
            return true;
        }
        Files.move(target, trash, StandardCopyOption.ATOMIC_MOVE);
        Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    /** Whether this platform swaps directories atomically. */
    public static boolean exchangeSupported() {
        return Holder.C != null && !exchangeUnavailable;
    }

    private static boolean exchange(Path a, Path b) throws IOException {
        CLibrary c = Holder.C;
        if (c == null || exchangeUnavailable) {
            warnFallback("renameat2 is not available on this platform");
            return false;
        }
        try {
            c.renameat2(AT_FDCWD, a.toString(), AT_FDCWD, b.toString(), RENAME_EXCHANGE);
            return true;
        } catch (UnsatisfiedLinkError e) {
            warnFallback("renameat2 is not available: " + e.getMessage());
            return false;
        } catch (LastErrorException e) {
            // EINVAL: the file system does not support RENAME_EXCHANGE; ENOSYS: old kernel.
            if (e.getErrorCode() == 22 || e.getErrorCode() == 38) {
                warnFallback("the file system does not support RENAME_EXCHANGE");
                return false;
            }
            throw new IOException(
                    "renameat2("
                            + a
                            + ", "
                            + b
                            + ", RENAME_EXCHANGE) failed: errno "
                            + e.getErrorCode(),
                    e);
        }
    }

    private static void warnFallback(String why) {
        if (!exchangeUnavailable) {
            exchangeUnavailable = true;
            LOG.warn(
                    "{}; compacted hours are replaced by two renames, so a reader may briefly"
                            + " find a re-compacted hour missing (never mixed)",
                    why);
        }
    }
}
