package io.sluice.features.training;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * How {@link TrainingSetJob} moves and orders the spine's rows between its steps: before each
 * point-in-time pass, to the subtask of the row's bucket ({@link ByBucket}, {@link BucketOf}) and
 * sorted by bucket, key and time ({@link EntityOrder}); before the part files, to the subtask of
 * the row's range of the spine ({@link ByRange}) and sorted by position ({@link RowOf}).
 */
final class SpineOrder {

    private SpineOrder() {}

    /** A bucket's rows all go to one subtask; rows without a key spread by row. */
    static final class ByBucket implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer bucket, int partitions) {
            return Math.floorMod(bucket, partitions);
        }
    }

    /** A row's bucket in the pass's table, or a negative number when it has no key. */
    static final class BucketOf implements KeySelector<GenericRecord, Integer> {
        private static final long serialVersionUID = 1L;
        private final SpineKeys keys;

        BucketOf(SpineKeys keys) {
            this.keys = keys;
        }

        @Override
        public Integer getKey(GenericRecord r) {
            String key = keys.key(r);
            return key == null ? -1 - (int) (keys.row(r) & 0xffff) : keys.bucket(key);
        }
    }

    /**
     * The order a pass computes rows in: by bucket, then key (so an entity's rows come together and
     * its tiles are built once per chunk), then time, as one string whose natural order is that of
     * (bucket, key, time). One atomic key and not a tuple because Flink 2.2's {@code sortPartition}
     * with a key selector compares only the first flat field of a composite key: a {@code Tuple3}
     * sorted by bucket alone, and each row then built its entity's tiles again.
     *
     * <p>The string is the bucket as two chars, the key, a NUL, and the time as four 16-bit chars,
     * big-endian with the sign bit flipped. A key holding NUL could interleave with another key of
     * the same prefix, which costs a tile rebuild, never a wrong value: the point-in-time step
     * computes each row from its own entity's events whatever order rows come in. Rows without a
     * key sort first, by position.
     */
    static final class EntityOrder implements KeySelector<GenericRecord, String> {
        private static final long serialVersionUID = 1L;
        private final SpineKeys keys;

        EntityOrder(SpineKeys keys) {
            this.keys = keys;
        }

        @Override
        public String getKey(GenericRecord r) {
            String key = keys.key(r);
            return key == null
                    ? of(0, "", keys.row(r))
                    : of(keys.bucket(key) + 1, key, keys.tail(r));
        }

        /** The order key of (bucket, key, time), {@code bucket} not negative. */
        static String of(int bucket, String key, long time) {
            StringBuilder s = new StringBuilder(key.length() + 7);
            s.append((char) (bucket >>> 16)).append((char) bucket).append(key).append('\0');
            long bits = time ^ Long.MIN_VALUE;
            for (int shift = 48; shift >= 0; shift -= 16) {
                s.append((char) (bits >>> shift));
            }
            return s.toString();
        }
    }

    /** Contiguous ranges of the spine's rows, one per subtask, in order. */
    static final class ByRange implements Partitioner<Long> {
        private static final long serialVersionUID = 1L;
        private final long rows;

        ByRange(long rows) {
            this.rows = Math.max(1, rows);
        }

        @Override
        public int partition(Long row, int partitions) {
            return (int) Math.min(partitions - 1, row * partitions / rows);
        }
    }

    /** A row's position in the spine. */
    static final class RowOf implements KeySelector<GenericRecord, Long> {
        private static final long serialVersionUID = 1L;
        private final int column;

        RowOf(int column) {
            this.column = column;
        }

        @Override
        public Long getKey(GenericRecord r) {
            return (Long) r.get(column);
        }
    }
}
