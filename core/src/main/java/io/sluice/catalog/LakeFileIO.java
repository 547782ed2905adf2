package io.sluice.catalog;

import io.sluice.lake.LakeFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Iceberg's file access through the lake's own file system ({@link LakeFiles}: Flink's {@link
 * FileSystem}, with its S3 plugin for an {@code s3:} root), set as the catalog's {@code io-impl}.
 *
 * <p>Written here because neither of Iceberg's own fits: {@code HadoopFileIO} on a {@code file:}
 * lake goes through Hadoop's local file system, which without Hadoop's native library forks a
 * {@code chmod} or {@code ls} process for permissions on every metadata file it writes (about half
 * a second of a commit, measured on the demo), and on {@code s3:} it would need Hadoop's S3A and an
 * AWS SDK on Sluice's class path beside the plugin's; {@code S3FileIO} needs the AWS SDK v2. This
 * one reaches both roots the way every other reader and writer of the lake does.
 *
 * <p>It holds no file system handle, only what Flink looks up per path, so it serializes as Iceberg
 * requires of a {@link FileIO}.
 */
public final class LakeFileIO implements FileIO {

    private static final long serialVersionUID = 1L;

    private Map<String, String> properties = Map.of();

    /** For the catalog, which creates it by name ({@code io-impl}) and then initializes it. */
    public LakeFileIO() {}

    @Override
    public void initialize(Map<String, String> props) {
        this.properties = Map.copyOf(props);
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    @Override
    public InputFile newInputFile(String location) {
        return new In(location, -1);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        return new In(location, length);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new Out(location);
    }

    @Override
    public void deleteFile(String location) {
        try {
            LakeFiles.delete(URI.create(location), false);
        } catch (IOException e) {
            throw failed("delete", location, e);
        }
    }

    private static UncheckedIOException failed(String what, String location, IOException e) {
        return new UncheckedIOException(
                "cannot " + what + " " + location + ": " + e.getMessage(), e);
    }

    private static FileSystem fileSystem(String location) throws IOException {
        return LakeFiles.fileSystem(URI.create(location));
    }

    private static final class In implements InputFile {
        private final String location;
        private long length;

        In(String location, long length) {
            this.location = location;
            this.length = length;
        }

        @Override
        public long getLength() {
            if (length < 0) {
                try {
                    length = fileSystem(location).getFileStatus(new Path(location)).getLen();
                } catch (FileNotFoundException e) {
                    throw new NotFoundException(e, "no file at %s", location);
                } catch (IOException e) {
                    throw failed("stat", location, e);
                }
            }
            return length;
        }

        @Override
        public SeekableInputStream newStream() {
            try {
                return new Seekable(fileSystem(location).open(new Path(location)));
            } catch (FileNotFoundException e) {
                throw new NotFoundException(e, "no file at %s", location);
            } catch (IOException e) {
                throw failed("open", location, e);
            }
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public boolean exists() {
            try {
                return fileSystem(location).exists(new Path(location));
            } catch (IOException e) {
                throw failed("stat", location, e);
            }
        }
    }

    private static final class Out implements OutputFile {
        private final String location;

        Out(String location) {
            this.location = location;
        }

        @Override
        public PositionOutputStream create() {
            try {
                if (fileSystem(location).exists(new Path(location))) {
                    throw new AlreadyExistsException("file already exists: %s", location);
                }
            } catch (IOException e) {
                throw failed("stat", location, e);
            }
            return open(FileSystem.WriteMode.NO_OVERWRITE);
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return open(FileSystem.WriteMode.OVERWRITE);
        }

        private PositionOutputStream open(FileSystem.WriteMode mode) {
            try {
                return new Positioned(
                        fileSystem(location).create(new Path(location), mode),
                        LakeFiles.supportsAtomicRename(URI.create(location)));
            } catch (IOException e) {
                throw failed("create", location, e);
            }
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public InputFile toInputFile() {
            return new In(location, -1);
        }
    }

    private static final class Seekable extends SeekableInputStream {
        private final FSDataInputStream in;

        Seekable(FSDataInputStream in) {
            this.in = in;
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
            in.seek(newPos);
        }

        @Override
        public int read() throws IOException {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        public long skip(long n) throws IOException {
            return in.skip(n);
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /**
     * Counts its own position: Iceberg asks a manifest's stream for its length after closing it,
     * when Flink's stream no longer answers.
     *
     * <p>On an object store a flush does nothing: the object is uploaded whole when the stream
     * closes, and nothing can be read of it before. Passed on, Iceberg's flush of each metadata
     * file reached S3A's {@code hflush}, which does nothing either but warns that the application
     * called an unsupported API.
     */
    private static final class Positioned extends PositionOutputStream {
        private final FSDataOutputStream out;
        private final boolean flushes;
        private long position;

        /**
         * @param flushes whether {@link #flush} is passed on (a file system) or not (an object
         *     store)
         */
        Positioned(FSDataOutputStream out, boolean flushes) {
            this.out = out;
            this.flushes = flushes;
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            position += len;
        }

        @Override
        public void flush() throws IOException {
            if (flushes) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
