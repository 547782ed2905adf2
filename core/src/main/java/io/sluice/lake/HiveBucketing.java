package io.sluice.lake;

import java.nio.charset.StandardCharsets;
import org.apache.avro.util.Utf8;

/**
 * Hive {@code bucketing_version=2} bucket assignment for a single string, int or bigint key.
 *
 * <p>A bucketed Hive table promises that every row whose key hashes to bucket {@code b} lives in
 * file {@code b}. Hive, Trino and Spark all rely on that promise to prune files and to run bucketed
 * joins without a shuffle, so a file written by Sluice is only correct if every one of those
 * readers computes the same bucket for every row. Approximately-right hashing silently returns
 * wrong query results, so this class reproduces Hive's arithmetic bit for bit, including its
 * quirks:
 *
 * <ul>
 *   <li>The hash is Hive's own Murmur3 x86 32-bit variant with seed 104729 (not 0). It sign-extends
 *       the trailing 1-3 bytes instead of masking them, so it differs from textbook Murmur3 (and
 *       Guava's) whenever a non-ASCII byte lands in the tail. Trino copies this on purpose.
 *   <li>Strings are hashed as their UTF-8 bytes.
 *   <li>Integers are first written big-endian (as {@code java.nio.ByteBuffer} does in Hive's {@code
 *       ObjectInspectorUtils.hashCodeMurmur}) and then read back little-endian by Murmur3. An int
 *       is 4 bytes and a bigint is 8 bytes, so the same number hashes differently as int and as
 *       bigint: callers must pass the column's declared width.
 *   <li>A null key hashes to 0, which always lands in bucket 0.
 *   <li>The bucket is {@code (hash & Integer.MAX_VALUE) % numBuckets}: clearing the sign bit, not
 *       {@code Math.abs} or {@code Math.floorMod}, which disagree for negative hashes.
 * </ul>
 *
 * <p>Only single-column keys are supported. Hive combines several bucketing columns as {@code 31 *
 * h + fieldHash}, which is left to callers that need it.
 */
public final class HiveBucketing {

    /** Hive's {@code Murmur3.DEFAULT_SEED}; any other seed breaks agreement with Hive. */
    private static final int SEED = 104729;

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private HiveBucketing() {}

    /** Bucketing-v2 hash of a STRING/VARCHAR key; {@code null} hashes to 0 as in Hive. */
    public static int hash(String key) {
        if (key == null) {
            return 0;
        }
        // Hive hashes Text bytes; Java's UTF-8 encoder and Hadoop's Text both replace an unpaired
        // surrogate with '?', so they agree even on malformed strings.
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        return murmur3(utf8, utf8.length);
    }

    /** Bucketing-v2 hash of an INT key: Murmur3 over its 4 big-endian bytes. */
    public static int hash(int key) {
        // Murmur3 reads its single 4-byte block little-endian, so the big-endian bytes Hive
        // writes arrive as the byte-reversed int; computing it directly avoids an allocation.
        int h = mixHash(SEED, Integer.reverseBytes(key));
        return finish(h, Integer.BYTES);
    }

    /** Bucketing-v2 hash of a BIGINT key: Murmur3 over its 8 big-endian bytes. */
    public static int hash(long key) {
        // The first 4 bytes Hive writes are the high word, each word seen byte-reversed.
        int h = mixHash(SEED, Integer.reverseBytes((int) (key >>> 32)));
        h = mixHash(h, Integer.reverseBytes((int) key));
        return finish(h, Long.BYTES);
    }

    /**
     * Bucket for a bucketing hash, matching Hive's {@code ObjectInspectorUtils.getBucketNumber}.
     *
     * @throws IllegalArgumentException if {@code numBuckets} is not positive
     */
    public static int bucketOfHash(int hash, int numBuckets) {
        if (numBuckets <= 0) {
            // Fail loudly: x % 0 throws ArithmeticException and x % -1 is always 0, and -1 is a
            // common "unknown" bucket count in Hive metadata.
            throw new IllegalArgumentException("numBuckets must be > 0, got " + numBuckets);
        }
        return (hash & Integer.MAX_VALUE) % numBuckets;
    }

    /**
     * Bucket for a key of a supported type: {@link CharSequence} (hashed as STRING), {@link
     * Integer} (INT), {@link Long} (BIGINT) or {@code null}.
     *
     * @throws IllegalArgumentException for any other key type, or if {@code numBuckets} is not
     *     positive
     */
    public static int bucket(Object key, int numBuckets) {
        return bucketOfHash(hashOf(key), numBuckets);
    }

    private static int hashOf(Object key) {
        if (key == null) {
            return 0;
        }
        if (key instanceof Utf8 utf8) {
            return murmur3(utf8.getBytes(), utf8.getByteLength());
        }
        if (key instanceof CharSequence chars) {
            return hash(chars.toString());
        }
        if (key instanceof Integer i) {
            return hash(i.intValue());
        }
        if (key instanceof Long l) {
            return hash(l.longValue());
        }
        // Widening e.g. a Short or Byte would be silently wrong: Hive hashes SMALLINT as 2 bytes
        // and TINYINT as the value itself, so refuse rather than guess.
        throw new IllegalArgumentException(
                "Unsupported Hive bucketing key type: " + key.getClass().getName());
    }

    /** Hive's Murmur3 32-bit over {@code data}, including its signed-tail quirk. */
    private static int murmur3(byte[] data, int length) {
        int tailStart = length & ~3;
        int h = SEED;
        for (int i = 0; i < tailStart; i += 4) {
            int block =
                    (data[i] & 0xff)
                            | (data[i + 1] & 0xff) << 8
                            | (data[i + 2] & 0xff) << 16
                            | (data[i + 3] & 0xff) << 24;
            h = mixHash(h, block);
        }
        if (tailStart < length) {
            int tail = 0;
            for (int i = length - 1; i >= tailStart; i--) {
                // Deliberately no "& 0xff": Hive lets a negative byte sign-extend over the higher
                // tail bytes, and matching Hive matters more than matching the reference Murmur3.
                tail ^= data[i] << (8 * (i - tailStart));
            }
            h ^= mixBlock(tail);
        }
        return finish(h, length);
    }

    private static int mixBlock(int block) {
        return Integer.rotateLeft(block * C1, 15) * C2;
    }

    private static int mixHash(int h, int block) {
        return Integer.rotateLeft(h ^ mixBlock(block), 13) * 5 + 0xe6546b64;
    }

    private static int finish(int h, int length) {
        h ^= length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
