package io.sluice.compact;

import org.apache.avro.util.Utf8;

/**
 * How compaction handles a row's id and key values: stable copies of them, their order and the
 * 64-bit id hash that de-duplication groups rows by.
 */
final class RowValues {

    private RowValues() {}

    /** A JSON-friendly key: strings as {@link String}. */
    static Object jsonKey(Object key) {
        return key instanceof Utf8 ? key.toString() : key;
    }

    /** Strings compare by their UTF-8 bytes, the order of Parquet statistics and DuckDB. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compareValues(Object a, Object b) {
        return ((Comparable) a).compareTo(b);
    }

    /** A key that outlives the reader's reused record; strings become {@link Utf8}. */
    static Object stable(Object value) {
        if (value instanceof Utf8 utf8) {
            return new Utf8(utf8);
        }
        if (value instanceof CharSequence chars) {
            return new Utf8(chars.toString());
        }
        return value;
    }

    /**
     * A 64-bit hash of an id (FNV-1a over its UTF-8 bytes, then Murmur3's finaliser); integer ids
     * are their own hash. Collisions cost an exact comparison, never a wrong answer.
     */
    static long hash64(Object id) {
        if (id instanceof Number n) {
            return n.longValue();
        }
        byte[] bytes;
        int length;
        if (id instanceof Utf8 utf8) {
            bytes = utf8.getBytes();
            length = utf8.getByteLength();
        } else {
            bytes = id.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            length = bytes.length;
        }
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < length; i++) {
            h ^= bytes[i] & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
