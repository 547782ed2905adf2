package io.sluice.compact;

import io.sluice.config.TableConfig;
import io.sluice.event.DuplicateRule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * The rows of one landing hour, held compactly while it is compacted.
 *
 * <p>Each row is kept as its Avro encoding in the table's current schema plus the few values the
 * compaction orders by: one object and one array per row, where a decoded record is a dozen
 * objects. Decoded records kept the garbage collector busier than the compaction itself. The id is
 * kept as a 64-bit hash; the id itself is decoded again only where two rows need it (a hash
 * collision, or a tie on key and time).
 */
final class HourRows {

    /** One row: its encoding and what it sorts and buckets by. */
    static final class Row {
        final byte[] payload;
        final Object key;
        final long time;
        final long idHash;
        final int bucket;
        final long seq;
        int rank;

        Row(byte[] payload, Object key, long time, long idHash, int bucket, long seq) {
            this.payload = payload;
            this.key = key;
            this.time = time;
            this.idHash = idHash;
            this.bucket = bucket;
            this.seq = seq;
        }
    }

    private final TableConfig table;
    private final Schema idOnly;
    private final LandingFileReader files;
    private final ThreadLocal<IdReader> idReaders;

    HourRows(TableConfig table) {
        this.table = table;
        this.idOnly = projection(table.schema(), Set.of(table.id()));
        this.files = new LandingFileReader(table);
        this.idReaders = ThreadLocal.withInitial(IdReader::new);
    }

    /** {@code schema} with only the fields named in {@code names}, in its order. */
    static Schema projection(Schema schema, Set<String> names) {
        return Schema.createRecord(
                schema.getName(),
                null,
                schema.getNamespace(),
                false,
                schema.getFields().stream()
                        .filter(f -> names.contains(f.name()))
                        .map(f -> new Schema.Field(f, f.schema()))
                        .toList());
    }

    /** One landing file of an hour, with its place in name order and its rows. */
    record LandingFile(URI uri, int index, long rows) {}

    /** Where {@link #read(URI, int, long, RowSink)} hands each row. */
    interface RowSink {
        void accept(Row row) throws IOException;
    }

    /**
     * Reads one landing file, resolving its writer schema to the table's current one.
     *
     * @param fileIndex the file's place in the hour's name order: rows are numbered by it so that
     *     every order decision is the same however the files were read
     */
    List<Row> read(URI file, int fileIndex, long expectedRows) throws IOException {
        List<Row> rows = new ArrayList<>((int) Math.min(expectedRows, 1 << 24));
        read(file, fileIndex, expectedRows, rows::add);
        return rows;
    }

    /** Like {@link #read(URI, int, long)}, handing the rows to {@code sink} as they are read. */
    void read(URI file, int fileIndex, long expectedRows, RowSink sink) throws IOException {
        files.read(file, fileIndex, expectedRows, sink);
    }

    /** Bytes a row's fixed parts take on the heap, at least (object, array header, list slot). */
    static final long ROW_OVERHEAD = 80;

    /**
     * An estimate of the heap a row holds, its key counted as its own (keys shared between rows
     * make this an over-estimate): what the memory budget is charged per row.
     */
    static long footprint(Row row) {
        Object key = row.key;
        long keyBytes = key instanceof Utf8 utf8 ? 48 + utf8.getByteLength() : 16;
        return ROW_OVERHEAD + row.payload.length + keyBytes;
    }

    /**
     * Removes duplicate ids, keeping per id the winner of {@link DuplicateRule} (the earliest event
     * time, then the smallest digest of the row in the current schema), as the ingest and features
     * jobs do: the same row whatever order the copies landed or the files were read in. All rows of
     * a landing hour share their event hour, so each id here is one de-duplication unit. Digests
     * are computed only for the rows of repeated ids.
     */
    List<Row> deduplicate(List<Row> rows) {
        long[] hashes = new long[rows.size()];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = rows.get(i).idHash;
        }
        Arrays.sort(hashes);
        Set<Long> repeated = new HashSet<>();
        for (int i = 1; i < hashes.length; i++) {
            if (hashes[i] == hashes[i - 1]) {
                repeated.add(hashes[i]);
            }
        }
        if (repeated.isEmpty()) {
            return rows;
        }
        Map<Object, Row> winnerById = new HashMap<>();
        Map<Row, byte[]> digests = new IdentityHashMap<>();
        for (Row row : rows) {
            if (repeated.contains(row.idHash)) {
                winnerById.merge(id(row), row, (a, b) -> byRule(a, b, digests) <= 0 ? a : b);
            }
        }
        Set<Row> keep = Collections.newSetFromMap(new IdentityHashMap<>());
        keep.addAll(winnerById.values());
        List<Row> unique = new ArrayList<>(rows.size());
        for (Row row : rows) {
            if (!repeated.contains(row.idHash) || keep.contains(row)) {
                unique.add(row);
            }
        }
        return unique;
    }

    /** {@link DuplicateRule} between two rows of one id; exact repeats by file order. */
    private static int byRule(Row a, Row b, Map<Row, byte[]> digests) {
        int c =
                DuplicateRule.compare(
                        a.time,
                        digests.computeIfAbsent(a, r -> DuplicateRule.digest(r.payload)),
                        b.time,
                        digests.computeIfAbsent(b, r -> DuplicateRule.digest(r.payload)));
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    }

    /**
     * Sets each row's rank among the distinct keys of {@code rows} (a bucket's), so that sorting
     * compares ints instead of strings: there are far fewer keys than rows.
     */
    static void rankKeys(List<Row> rows) {
        Map<Object, Integer> ranks = new HashMap<>();
        for (Row row : rows) {
            ranks.putIfAbsent(row.key, 0);
        }
        List<Object> keys = new ArrayList<>(ranks.keySet());
        keys.sort(RowValues::compareValues);
        for (int i = 0; i < keys.size(); i++) {
            ranks.put(keys.get(i), i);
        }
        for (Row row : rows) {
            row.rank = ranks.get(row.key);
        }
    }

    /** The warehouse order, (key, event time, id), once keys are ranked. */
    final Comparator<Row> order =
            (a, b) -> {
                int c = Integer.compare(a.rank, b.rank);
                return c != 0 ? c : byTimeThenId(a, b);
            };

    /**
     * Sorts the rows of one bucket, all {@link #rankKeys ranked}, in {@link #order}. Where each
     * row's rank, time (less the bucket's earliest) and place in the list fit together in a long,
     * those longs are sorted instead of the rows: a comparator over the rows reads two objects
     * scattered over the heap per comparison, which made sorting the largest cost of writing a
     * bucket after Parquet's own. Rows equal in rank and time are then put in order by id (as
     * {@link #order}), which needs their payloads; they are rare. Otherwise the rows are sorted
     * with {@link #order}; both give the same order.
     */
    void sort(List<Row> rows) {
        int n = rows.size();
        if (n < 2) {
            return;
        }
        long minTime = Long.MAX_VALUE;
        long maxTime = Long.MIN_VALUE;
        int maxRank = 0;
        for (Row row : rows) {
            minTime = Math.min(minTime, row.time);
            maxTime = Math.max(maxTime, row.time);
            maxRank = Math.max(maxRank, row.rank);
        }
        long span = maxTime - minTime; // negative when it overflows
        int indexBits = bits(n - 1);
        int timeBits = bits(span);
        if (span < 0 || bits(maxRank) + timeBits + indexBits > 63) {
            rows.sort(order);
            return;
        }
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            Row row = rows.get(i);
            keys[i] = ((((long) row.rank << timeBits) | (row.time - minTime)) << indexBits) | i;
        }
        Arrays.sort(keys);
        long indexMask = (1L << indexBits) - 1;
        Row[] sorted = new Row[n];
        for (int i = 0; i < n; i++) {
            sorted[i] = rows.get((int) (keys[i] & indexMask));
        }
        int start = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || keys[i] >>> indexBits != keys[start] >>> indexBits) {
                if (i - start > 1) {
                    Arrays.sort(sorted, start, i, order);
                }
                start = i;
            }
        }
        for (int i = 0; i < n; i++) {
            rows.set(i, sorted[i]);
        }
    }

    /** Bits that hold {@code value}, at least 0. */
    private static int bits(long value) {
        return 64 - Long.numberOfLeadingZeros(value);
    }

    /**
     * The warehouse order without key ranks, for rows sorted in runs: bucket, then (key, event
     * time, id) as {@link #order}, keys compared as {@link #rankKeys} ranks them.
     */
    final Comparator<Row> spillOrder =
            (a, b) -> {
                int c = Integer.compare(a.bucket, b.bucket);
                if (c != 0) {
                    return c;
                }
                c = RowValues.compareValues(a.key, b.key);
                return c != 0 ? c : byTimeThenId(a, b);
            };

    /** Rows of one key in the warehouse order: event time, then id, then arrival. */
    private int byTimeThenId(Row a, Row b) {
        int c = Long.compare(a.time, b.time);
        if (c != 0) {
            return c;
        }
        c = RowValues.compareValues(id(a), id(b));
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    }

    /** Rows with one id hash next to each other, for de-duplication over sorted runs. */
    static final Comparator<Row> ID_HASH_ORDER =
            (a, b) -> {
                int c = Long.compare(a.idHash, b.idHash);
                return c != 0 ? c : Long.compare(a.seq, b.seq);
            };

    /** The row's id, decoded from its payload (only its id field is read). */
    Object id(Row row) {
        return idReaders.get().read(row.payload);
    }

    /** Reads just the id of an encoded row; one per thread. */
    private final class IdReader {
        private final GenericDatumReader<GenericData.Record> reader =
                new GenericDatumReader<>(table.schema(), idOnly);
        private BinaryDecoder decoder;

        Object read(byte[] payload) {
            decoder = DecoderFactory.get().binaryDecoder(payload, decoder);
            try {
                return RowValues.stable(reader.read(null, decoder).get(0));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
