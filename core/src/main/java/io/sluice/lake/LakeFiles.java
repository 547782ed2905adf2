package io.sluice.lake;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystem.WriteMode;
import org.apache.flink.core.fs.Path;

/**
 * Reads and writes lake files through Flink's {@link FileSystem}, so that the same code works on a
 * {@code file:} root and on an {@code s3:} one. Code that touches the lake uses this (or Flink's
 * sources and sinks) rather than {@code java.nio.file}. An {@code s3:} location needs {@link
 * LakeFileSystem#initialize} first.
 *
 * <p>What differs between the two is said per method. The one thing an object store cannot do is an
 * atomic rename: {@link #supportsAtomicRename} tells callers which publish protocol to use.
 */
public final class LakeFiles {

    /**
     * One entry of a listing.
     *
     * @param uri the entry's location, as the file system spells it
     * @param name the last segment of its path
     * @param length size in bytes (0 for a directory)
     * @param directory a directory, or on an object store a common prefix of keys
     * @param modified last modification, epoch millis (0 where the store does not say, as for an
     *     object store's common prefix)
     */
    public record Entry(URI uri, String name, long length, boolean directory, long modified) {}

    private LakeFiles() {}

    /** The file system that serves {@code location}. */
    public static FileSystem fileSystem(URI location) throws IOException {
        return FileSystem.get(location);
    }

    /** {@code relative} (slash-separated) under {@code base}, however {@code base} ends. */
    public static URI resolve(URI base, String relative) {
        return new Path(new Path(base), relative).toUri();
    }

    /** The whole content of a file. */
    public static byte[] read(URI file) throws IOException {
        try (FSDataInputStream in = open(file)) {
            return in.readAllBytes();
        }
    }

    /** A stream over a file's content. */
    public static FSDataInputStream open(URI file) throws IOException {
        Path path = new Path(file);
        return path.getFileSystem().open(path);
    }

    /**
     * A stream that writes {@code file}, replacing it. On an object store nothing is visible until
     * the stream is closed, then all of it; on a file system the file grows as it is written, so a
     * reader or a crash can see part of it: use {@link #write} where that matters.
     */
    public static FSDataOutputStream create(URI file) throws IOException {
        Path path = new Path(file);
        return path.getFileSystem().create(path, WriteMode.OVERWRITE);
    }

    /**
     * Writes {@code bytes} as {@code file}, replacing it, so that a reader sees the old content or
     * all of the new, never a part, even after a crash. On an object store one upload does this; on
     * a file system the bytes go to a hidden sibling ({@code .<name>.<uuid>.tmp}, which Hive-style
     * readers skip) that is then renamed over the file. A crash may leave such a sibling behind.
     */
    public static void write(URI file, byte[] bytes) throws IOException {
        if (!supportsAtomicRename(file)) {
            try (FSDataOutputStream out = create(file)) {
                out.write(bytes);
            }
            return;
        }
        Path target = new Path(file);
        Path temp =
                new Path(
                        target.getParent(),
                        "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
        FileSystem fs = target.getFileSystem();
        try {
            try (FSDataOutputStream out = fs.create(temp, WriteMode.NO_OVERWRITE)) {
                out.write(bytes);
                out.sync();
            }
            replaceLocally(temp.toUri(), file);
        } finally {
            if (fs.exists(temp)) {
                fs.delete(temp, false);
            }
        }
    }

    /** Writes a local file; see {@link #writeLocally}. */
    @FunctionalInterface
    public interface LocalWrite {
        void to(java.nio.file.Path file) throws IOException;
    }

    /**
     * Writes {@code file} of the lake with a writer that needs a local file (parquet-java's, for
     * example), replacing it. On a file system {@code write} writes it in place. On an object store
     * it writes a local temporary file, which is uploaded once complete, so that the object is all
     * of it or nothing: a writer failing half-way would otherwise leave a shorter file behind as
     * its stream closed.
     */
    public static void writeLocally(URI file, LocalWrite write) throws IOException {
        if (supportsAtomicRename(file)) {
            write.to(Publish.local(file));
            return;
        }
        java.nio.file.Path local = java.nio.file.Files.createTempFile("sluice-", ".tmp");
        try {
            write.to(local);
            upload(local, file);
        } finally {
            java.nio.file.Files.deleteIfExists(local);
        }
    }

    /** Copies a local file to {@code file} of the lake, replacing it. */
    public static void upload(java.nio.file.Path local, URI file) throws IOException {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(local);
                FSDataOutputStream out = create(file)) {
            in.transferTo(out);
        }
    }

    /** True if a file, directory or (on an object store) a key prefix exists there. */
    public static boolean exists(URI location) throws IOException {
        Path path = new Path(location);
        return path.getFileSystem().exists(path);
    }

    /**
     * The direct children of a directory (on an object store: the objects and common prefixes one
     * level under the prefix), sorted by name; empty if there is nothing there.
     */
    public static List<Entry> list(URI directory) throws IOException {
        Path path = new Path(directory);
        FileStatus[] statuses = listStatus(path.getFileSystem(), path);
        List<Entry> entries = new ArrayList<>();
        for (FileStatus status : statuses == null ? new FileStatus[0] : statuses) {
            Path p = status.getPath();
            entries.add(
                    new Entry(
                            p.toUri(),
                            p.getName(),
                            status.isDir() ? 0 : status.getLen(),
                            status.isDir(),
                            status.getModificationTime()));
        }
        entries.sort(Comparator.comparing(Entry::name));
        return entries;
    }

    /**
     * {@code fs.listStatus(path)}, or null if nothing is there. A local file system lists a
     * directory's names and then reads each one's status, so a file renamed or removed in between
     * (an in-progress part file the file sink commits, a staging file) fails the listing with
     * {@link FileNotFoundException}: the directory is then listed again, as long as it exists.
     */
    public static FileStatus[] listStatus(FileSystem fs, Path path) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return fs.listStatus(path);
            } catch (FileNotFoundException e) {
                if (!fs.exists(path)) {
                    return null;
                }
                if (attempt == 10) {
                    throw e;
                }
            }
        }
    }

    /**
     * Creates a directory and its parents (on an object store, where prefixes need none, a no-op).
     */
    public static void mkdirs(URI directory) throws IOException {
        Path path = new Path(directory);
        path.getFileSystem().mkdirs(path);
    }

    /**
     * Deletes a file, or a directory (with everything under it if {@code recursive}).
     *
     * @return false if there was nothing to delete
     */
    public static boolean delete(URI location, boolean recursive) throws IOException {
        Path path = new Path(location);
        FileSystem fs = path.getFileSystem();
        return fs.exists(path) && fs.delete(path, recursive);
    }

    /**
     * True if {@link #rename} is one atomic step at {@code location}: on a local file system, not
     * on an object store, where a rename is a copy and a delete per object.
     */
    public static boolean supportsAtomicRename(URI location) {
        String scheme = location.getScheme();
        return scheme == null || scheme.equals("file");
    }

    /**
     * Renames {@code from} to {@code to} in one atomic step, replacing a file at {@code to}.
     *
     * @throws UnsupportedOperationException where {@link #supportsAtomicRename} is false: publish
     *     by writing a manifest instead
     */
    public static void rename(URI from, URI to) throws IOException {
        if (!supportsAtomicRename(from) || !supportsAtomicRename(to)) {
            throw new UnsupportedOperationException(
                    "no atomic rename on "
                            + from.getScheme()
                            + ": (object stores copy and delete)");
        }
        replaceLocally(from, to);
    }

    /**
     * {@code rename(2)}, which replaces a file at {@code to} in one step. Flink's local file system
     * renames with {@code Files.move(REPLACE_EXISTING)}, which deletes the target first: for a
     * moment a reader found no manifest at all (an ITCase read a landing hour's {@code _SUCCESS}
     * just then and failed on a missing file).
     */
    private static void replaceLocally(URI from, URI to) throws IOException {
        java.nio.file.Path target = Publish.local(to);
        java.nio.file.Files.createDirectories(target.getParent());
        java.nio.file.Files.move(
                Publish.local(from), target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Moves one file to {@code to}, which must not exist. On a file system it is one atomic rename;
     * on an object store a copy and a delete of the object, so a reader may see it under both names
     * for a moment: callers that need atomic publishing use {@link #rename} or a manifest.
     */
    public static void move(URI from, URI to) throws IOException {
        Path source = new Path(from);
        if (!source.getFileSystem().rename(source, new Path(to))) {
            throw new IOException("cannot move " + from + " to " + to);
        }
    }
}
