package io.sluice.compact;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.ToIntFunction;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * An external sort of rows: rows are buffered until their estimated heap ({@link
 * HourRows#footprint}) reaches the budget, then sorted and written to a local file as one sorted
 * run; {@link #merge} reads the runs back merged into one sorted stream (a k-way merge over a heap
 * of the runs' next rows).
 *
 * <p>Rows are split into sections (the compaction's buckets), each run holding its sections one
 * after the other, so that a section can be merged on its own: a run records where each of its
 * sections starts and how many rows it holds. The merge opens every run at once; there is no
 * intermediate merge pass, as a run is as large as the budget and an hour is a few budgets at most
 * (each open run costs one read buffer, {@link #READ_BUFFER} bytes).
 *
 * <p>Hand-rolled because nothing on the compact job's class path sorts arbitrary objects off the
 * heap by a comparator: Flink's external sorter works on its managed memory inside an operator, not
 * in plain code called per hour, and Parquet or Avro have none.
 */
final class SortedRuns implements Closeable {

    /** Bytes read ahead per open run while merging. */
    static final int READ_BUFFER = 8 << 10;

    private static final int WRITE_BUFFER = 64 << 10;

    private static final DecoderFactory DECODERS =
            new DecoderFactory().configureDecoderBufferSize(READ_BUFFER);

    /** One spilled run: its file and, per section, its start offset and rows. */
    private record Run(Path file, long[] offsets, long[] rows) {}

    private final Path dir;
    private final String name;
    private final SpillCodec codec;
    private final Comparator<HourRows.Row> order;
    private final ToIntFunction<HourRows.Row> sectionOf;
    private final long budget;
    private final long[] sectionRows;
    private final List<Run> runs = new ArrayList<>();
    private List<HourRows.Row> buffer = new ArrayList<>();
    private long buffered;

    /**
     * @param dir a local directory for the run files
     * @param name the prefix of the run files' names
     * @param order the order of rows within a section
     * @param sections how many sections there are
     * @param sectionOf a row's section, in {@code [0, sections)}
     * @param budget bytes of rows (estimated) held before a run is spilled
     */
    SortedRuns(
            Path dir,
            String name,
            SpillCodec codec,
            Comparator<HourRows.Row> order,
            int sections,
            ToIntFunction<HourRows.Row> sectionOf,
            long budget) {
        this.dir = dir;
        this.name = name;
        this.codec = codec;
        this.order = order;
        this.sectionOf = sectionOf;
        this.budget = Math.max(1, budget);
        this.sectionRows = new long[sections];
    }

    void add(HourRows.Row row) throws IOException {
        buffer.add(row);
        sectionRows[sectionOf.applyAsInt(row)]++;
        buffered += HourRows.footprint(row);
        if (buffered >= budget) {
            spill();
        }
    }

    /** Spills what is still buffered; call once, after the last {@link #add}. */
    void finish() throws IOException {
        if (!buffer.isEmpty()) {
            spill();
        }
        buffer = List.of();
    }

    int runs() {
        return runs.size();
    }

    /** Rows added to {@code section}. */
    long rows(int section) {
        return sectionRows[section];
    }

    private void spill() throws IOException {
        buffer.sort(Comparator.comparingInt(sectionOf).thenComparing(order));
        Path file = dir.resolve(String.format("%s-%06d.run", name, runs.size()));
        long[] offsets = new long[sectionRows.length];
        long[] rows = new long[sectionRows.length];
        try (FileChannel channel =
                        FileChannel.open(
                                file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                OutputStream out =
                        new BufferedOutputStream(Channels.newOutputStream(channel), WRITE_BUFFER)) {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            int section = -1;
            for (HourRows.Row row : buffer) {
                int s = sectionOf.applyAsInt(row);
                if (s != section) {
                    out.flush();
                    offsets[s] = channel.position();
                    section = s;
                }
                rows[s]++;
                codec.write(row, encoder);
            }
        }
        runs.add(new Run(file, offsets, rows));
        // A new list rather than clear(): the old one's array is as long as the largest run.
        buffer = new ArrayList<>();
        buffered = 0;
    }

    /** The rows of {@code section} from every run, in order; call after {@link #finish}. */
    RowStream merge(int section) throws IOException {
        PriorityQueue<Cursor> heads = new PriorityQueue<>((a, b) -> order.compare(a.head, b.head));
        List<Cursor> open = new ArrayList<>();
        try {
            for (Run run : runs) {
                if (run.rows()[section] > 0) {
                    Cursor cursor = new Cursor(run, section);
                    open.add(cursor);
                    if (cursor.advance()) {
                        heads.add(cursor);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            for (Cursor cursor : open) {
                cursor.close();
            }
            throw e;
        }
        return new RowStream() {
            @Override
            public HourRows.Row next() throws IOException {
                Cursor first = heads.poll();
                if (first == null) {
                    return null;
                }
                HourRows.Row row = first.head;
                if (first.advance()) {
                    heads.add(first);
                }
                return row;
            }

            @Override
            public void close() throws IOException {
                for (Cursor cursor : open) {
                    cursor.close();
                }
            }
        };
    }

    /** Deletes the run files. */
    @Override
    public void close() throws IOException {
        for (Run run : runs) {
            Files.deleteIfExists(run.file());
        }
        runs.clear();
    }

    /** Reads one section of one run. */
    private final class Cursor implements Closeable {
        private final InputStream in;
        private final BinaryDecoder decoder;
        private long left;
        HourRows.Row head;

        Cursor(Run run, int section) throws IOException {
            FileChannel channel = FileChannel.open(run.file(), StandardOpenOption.READ);
            try {
                channel.position(run.offsets()[section]);
            } catch (IOException e) {
                channel.close();
                throw e;
            }
            this.in = Channels.newInputStream(channel);
            this.decoder = DECODERS.binaryDecoder(in, null);
            this.left = run.rows()[section];
        }

        boolean advance() throws IOException {
            if (left == 0) {
                head = null;
                return false;
            }
            left--;
            head = codec.read(decoder);
            return true;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
