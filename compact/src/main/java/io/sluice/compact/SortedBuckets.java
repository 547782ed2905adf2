package io.sluice.compact;

import java.io.IOException;
import java.util.List;

/**
 * The de-duplicated rows of an hour's buckets, each bucket in the warehouse order: held in memory
 * ({@link #inMemory}) or merged from sorted runs on local disk ({@link SpilledHour}).
 */
interface SortedBuckets {

    /** A bucket's rows in order, and how many distinct keys they hold (for its bloom filter). */
    record Bucket(long distinctKeys, RowStream rows) {}

    /** Rows in {@code bucket}. */
    long rows(int bucket);

    /** Opens {@code bucket}; may be called for different buckets from several threads. */
    Bucket open(int bucket) throws IOException;

    /**
     * Buckets held in memory, each {@link HourRows#rankKeys ranked} and sorted when opened (on the
     * thread that writes it: a key's rows are all in its bucket, so ranks within the bucket order
     * them as ranks over the hour would).
     */
    static SortedBuckets inMemory(List<List<HourRows.Row>> buckets, HourRows hourRows) {
        return new SortedBuckets() {
            @Override
            public long rows(int bucket) {
                return buckets.get(bucket).size();
            }

            @Override
            public Bucket open(int bucket) {
                List<HourRows.Row> rows = buckets.get(bucket);
                HourRows.rankKeys(rows);
                hourRows.sort(rows);
                long distinctKeys = 0;
                int previousRank = -1;
                for (HourRows.Row row : rows) {
                    if (row.rank != previousRank) {
                        distinctKeys++;
                        previousRank = row.rank;
                    }
                }
                return new Bucket(distinctKeys, RowStream.of(rows));
            }
        };
    }
}
