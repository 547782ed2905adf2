package io.sluice.lake;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.function.SupplierWithException;
import org.apache.flink.util.function.ThrowingConsumer;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Lake files as parquet-java reads them: on any file system {@link LakeFiles} serves, from a Flink
 * source's split stream or from an Iceberg file, always without Hadoop's configuration.
 */
public final class ParquetFiles {

    private ParquetFiles() {}

    /**
     * Object-store files up to this size are fetched whole, in one request, when opened to read.
     * parquet-java reads a file in several places (the footer's length, the footer, then each
     * column chunk and bloom filter it needs), and on an object store each is a ranged GET: for the
     * small bucket files of an hour, those round trips cost more than the bytes. Larger files are
     * read as Parquet asks, seeking.
     */
    public static final long WHOLE_FILE_BYTES = 8L << 20;

    /**
     * {@code file} as parquet-java reads a file: a local one directly ({@link LocalInputFile}, as
     * everywhere Sluice reads Parquet on a {@code file:} root), any other through {@link
     * LakeFiles#open}; its length is asked of the file system. See {@link #parquetInput(URI,
     * long)}.
     */
    public static InputFile parquetInput(URI file) throws IOException {
        if ("file".equals(file.getScheme())) {
            return new LocalInputFile(java.nio.file.Path.of(file));
        }
        Path path = new Path(file);
        return parquetInput(file, path.getFileSystem().getFileStatus(path).getLen());
    }

    /**
     * {@code file}, whose length is known (from a manifest, a snapshot or a listing), as
     * parquet-java reads a file. A local one is read directly. On an object store a file of at most
     * {@link #WHOLE_FILE_BYTES} is fetched whole, now, and read from memory (one GET instead of one
     * per footer and column chunk; a file that is gone fails here); a larger one is read through
     * one stream per reader of it, seeking as Parquet asks.
     */
    public static InputFile parquetInput(URI file, long length) throws IOException {
        if ("file".equals(file.getScheme())) {
            return new LocalInputFile(java.nio.file.Path.of(file));
        }
        if (length <= WHOLE_FILE_BYTES) {
            try (FSDataInputStream in = LakeFiles.open(file)) {
                return whole(in, length, file);
            }
        }
        return parquetFile(
                length,
                () -> {
                    FSDataInputStream in = LakeFiles.open(file);
                    return parquetStream(in, in::getPos, in::seek, true);
                });
    }

    /**
     * {@code stream}, {@code length} bytes long, as parquet-java reads a file, for a Flink source
     * format that is handed the split's stream. A file of at most {@link #WHOLE_FILE_BYTES} is read
     * whole from the stream now, in one request on an object store, and then from memory; a larger
     * one is read through the stream, seeking: Parquet opens it twice (footer, then rows) and
     * closes each, but the stream is the source's to close, so closing them leaves it open.
     */
    public static InputFile parquetInput(FSDataInputStream stream, long length) throws IOException {
        if (length <= WHOLE_FILE_BYTES) {
            stream.seek(0);
            return whole(stream, length, "the split's file");
        }
        return parquetFile(
                length, () -> parquetStream(stream, stream::getPos, stream::seek, false));
    }

    /** The {@code length} bytes {@code in} holds, as a file in memory; {@code what} names it. */
    private static InputFile whole(InputStream in, long length, Object what) throws IOException {
        byte[] bytes = in.readNBytes((int) length);
        if (bytes.length != length || in.read() != -1) {
            throw new IOException(
                    what
                            + " has "
                            + (bytes.length == length ? "more than " + length : bytes.length)
                            + " bytes, not the "
                            + length
                            + " expected");
        }
        InMemoryInputFile file = new InMemoryInputFile(bytes);
        return parquetFile(
                length,
                () -> {
                    org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
                    return parquetStream(stream, stream::getPos, stream::seek, true);
                });
    }

    /**
     * A file of {@code length} bytes as parquet-java reads one, each stream from {@code streams}.
     */
    public static InputFile parquetFile(
            long length, SupplierWithException<SeekableInputStream, IOException> streams) {
        return new InputFile() {
            @Override
            public long getLength() {
                return length;
            }

            @Override
            public SeekableInputStream newStream() throws IOException {
                return streams.get();
            }
        };
    }

    /**
     * parquet-java's stream over {@code in}, whose position and seek are {@code position} and
     * {@code seek} (Flink's and Iceberg's streams both have them, under no common type); closing it
     * closes {@code in} only if {@code closes}.
     */
    public static SeekableInputStream parquetStream(
            InputStream in,
            SupplierWithException<Long, IOException> position,
            ThrowingConsumer<Long, IOException> seek,
            boolean closes) {
        return new DelegatingSeekableInputStream(in) {
            @Override
            public long getPos() throws IOException {
                return position.get();
            }

            @Override
            public void seek(long newPos) throws IOException {
                seek.accept(newPos);
            }

            @Override
            public void close() throws IOException {
                if (closes) {
                    super.close();
                }
            }
        };
    }

    /**
     * Parquet read options that never touch Hadoop. parquet-java's defaults (and every reader built
     * without a {@code ParquetConfiguration}) create a Hadoop {@code Configuration}, which looks up
     * and parses {@code core-default.xml} on the class path on first use: tens of milliseconds of
     * CPU for every file opened, more than reading a small file itself. Every Parquet read in
     * Sluice goes through these options or a {@link PlainParquetConfiguration}.
     */
    public static ParquetReadOptions parquetOptions() {
        return ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    }

    /** Opens a Parquet file's reader with {@link #parquetOptions}. */
    public static ParquetFileReader openParquet(InputFile file) throws IOException {
        return ParquetFileReader.open(file, parquetOptions());
    }
}
