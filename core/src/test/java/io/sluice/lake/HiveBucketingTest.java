package io.sluice.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.hive.common.util.Murmur3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HiveBucketingTest {

    // Expected values in the *MatchTrino tests are the bucketing-v2 hash codes asserted in
    // TestHiveBucketing.testHashingCompare, repository trinodb/trino, file
    // plugin/trino-hive/src/test/java/io/trino/plugin/hive/util/TestHiveBucketing.java.
    // Trino checks each of them against both its own code and Hive's ObjectInspectorUtils, so
    // they are Hive's answers, not just Trino's.

    @ParameterizedTest
    @CsvSource({
        "'', -965378730",
        "test string, -138301454",
        "Trino rocks, -399107423",
        // 3-byte UTF-8 sequences (Basic Multilingual Plane)
        "'\u5f3a\u5927\u7684Trino\u5f15\u64ce', 1784416344",
        // U+20FFC..U+20FFF: 4-byte UTF-8 sequences written as surrogate pairs
        "'\uD843\uDFFC\uD843\uDFFD\uD843\uDFFE\uD843\uDFFF', -697348811",
    })
    void stringHashesMatchTrino(String key, int expected) {
        assertThat(HiveBucketing.hash(key)).isEqualTo(expected);
    }

    @Test
    void listOfStringsMatchesTrino() {
        // Trino's array<string> ["test1".."test4"] vector is 31-folded from the element hashes,
        // so it pins four more (tail-carrying) string hashes at once.
        int folded = 0;
        for (String element : new String[] {"test1", "test2", "test3", "test4"}) {
            folded = 31 * folded + HiveBucketing.hash(element);
        }
        assertThat(folded).isEqualTo(1305539282);
    }

    @ParameterizedTest
    @CsvSource({
        "300000, -678663480",
        "-2147483648, 1194881028",
        "2147483647, 1133859967",
        // Trino's DATE vectors: Hive hashes a date exactly like an INT of days since 1970-01-01
        // (1970-01-01, 2015-11-19, 1950-11-19), so they are INT vectors too.
        "0, 1362653161",
        "16758, 8542395",
        "-6983, -431619185",
    })
    void intHashesMatchTrino(int key, int expected) {
        assertThat(HiveBucketing.hash(key)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({
        "300000000000, -888935297",
        "-9223372036854775808, 1728983947",
        "9223372036854775807, -536577852",
    })
    void bigintHashesMatchTrino(long key, int expected) {
        assertThat(HiveBucketing.hash(key)).isEqualTo(expected);
    }

    @Test
    void nullHashesToZeroLikeTrino() {
        assertThat(HiveBucketing.hash((String) null)).isZero();
        assertThat(HiveBucketing.bucket((Object) null, 8)).isZero();
    }

    @Test
    void bucketsMatchTrino() {
        // TestHiveBucketing asserts getBucketNumber(1132136730, 4) == 2 and
        // getBucketNumber(-399107423, 4) == 1 (the latter being the v2 hash of "Trino rocks").
        assertThat(HiveBucketing.bucketOfHash(1132136730, 4)).isEqualTo(2);
        assertThat(HiveBucketing.bucketOfHash(-399107423, 4)).isEqualTo(1);
        assertThat(HiveBucketing.bucket("Trino rocks", 4)).isEqualTo(1);
    }

    @Test
    void bucketClearsSignBitOfNegativeHashes() {
        // -1 & MAX_VALUE == 2147483647; Math.floorMod(-1, 10) would give 9, Math.abs-based 1.
        assertThat(HiveBucketing.bucketOfHash(-1, 10)).isEqualTo(7);
        // Integer.MIN_VALUE has only the sign bit set, so it clears to 0 instead of overflowing.
        assertThat(HiveBucketing.bucketOfHash(Integer.MIN_VALUE, 7)).isZero();
        // -399107423 & MAX_VALUE == 1748376225, and 1748376225 % 997 == 136.
        assertThat(HiveBucketing.bucketOfHash(-399107423, 997)).isEqualTo(136);
        // hash("") == -965378730; (-965378730 & MAX_VALUE) % 16 == 6.
        assertThat(HiveBucketing.bucket("", 16)).isEqualTo(6);
        assertThat(HiveBucketing.bucketOfHash(-399107423, 1)).isZero();
    }

    // Pinned values below were computed with the real org.apache.hive.common.util.Murmur3 from
    // org.apache.hive:hive-storage-api:2.8.1 (Maven Central), fed the bytes Hive's
    // ObjectInspectorUtils.hashCodeMurmur builds. Trino's vectors all have ASCII tails (or no
    // tail), so these cover the sign-extended tail, where Hive differs from textbook Murmur3:
    // e.g. Guava's murmur3_32_fixed(104729) gives -1372482606 for "é", Hive -527561221.

    @ParameterizedTest
    @CsvSource({
        "a, 1086686554",
        "hello, 1321743225",
        // 2-byte tail C3 A9, both negative as Java bytes
        "'\u00e9', -527561221",
        "'na\u00efve', 2026526917",
        // 6 bytes: one block, then a 2-byte non-ASCII tail
        "'\u65e5\u672c', 529705047",
        "'Gr\u00fc\u00dfe', 437574964",
        // U+1F600 then "x": one 4-byte block and an ASCII tail
        "'\uD83D\uDE00x', -618841391",
    })
    void stringHashesMatchHiveMurmur3(String key, int expected) {
        assertThat(HiveBucketing.hash(key)).isEqualTo(expected).isEqualTo(hiveStringHash(key));
    }

    @ParameterizedTest
    @CsvSource({"0, 1754797035", "1, -913662660", "-1, -237789309", "42, -1236600470"})
    void bigintHashesMatchHiveMurmur3(long key, int expected) {
        assertThat(HiveBucketing.hash(key)).isEqualTo(expected).isEqualTo(hiveBigintHash(key));
    }

    @ParameterizedTest
    @CsvSource({"1, 1321152925", "-1, 1626716813", "42, 1960085659"})
    void intHashesMatchHiveMurmur3(int key, int expected) {
        assertThat(HiveBucketing.hash(key)).isEqualTo(expected).isEqualTo(hiveIntHash(key));
    }

    @Test
    void randomKeysMatchHiveMurmur3() {
        // Fixed seed so a failure is reproducible; lengths up to 40 bytes hit every tail length.
        SplittableRandom random = new SplittableRandom(20240601L);
        for (int n = 0; n < 20_000; n++) {
            String key = randomString(random);
            assertThat(HiveBucketing.hash(key)).as("string %s", key).isEqualTo(hiveStringHash(key));

            int i = random.nextInt();
            assertThat(HiveBucketing.hash(i)).as("int %d", i).isEqualTo(hiveIntHash(i));

            long l = random.nextLong();
            assertThat(HiveBucketing.hash(l)).as("bigint %d", l).isEqualTo(hiveBigintHash(l));
        }
    }

    @Test
    void intAndBigintOfSameValueHashDifferently() {
        // Hive hashes the declared width, so a caller must not widen an INT key to long.
        assertThat(HiveBucketing.hash(42)).isNotEqualTo(HiveBucketing.hash(42L));
        assertThat(HiveBucketing.bucket(Integer.valueOf(42), 1024))
                .isEqualTo(HiveBucketing.bucketOfHash(1960085659, 1024));
        assertThat(HiveBucketing.bucket(Long.valueOf(42L), 1024))
                .isEqualTo(HiveBucketing.bucketOfHash(-1236600470, 1024));
    }

    @Test
    void primitiveIntArgumentIsHashedAsAnIntKey() {
        assertThat(HiveBucketing.bucket(42, 1024))
                .isEqualTo(HiveBucketing.bucketOfHash(HiveBucketing.hash(42), 1024));
    }

    @Test
    void charSequenceKeysHashAsStrings() {
        assertThat(HiveBucketing.bucket(new StringBuilder("Trino rocks"), 4)).isEqualTo(1);
    }

    @Test
    void rejectsUnsupportedKeyTypesByName() {
        // Hive hashes a SMALLINT as 2 bytes: widening it to an int key would be silently wrong.
        assertThatThrownBy(() -> HiveBucketing.bucket(Short.valueOf((short) 300), 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Short");
        assertThatThrownBy(() -> HiveBucketing.bucket(1.5d, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Double");
    }

    @Test
    void rejectsNonPositiveBucketCounts() {
        assertThatThrownBy(() -> HiveBucketing.bucketOfHash(1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HiveBucketing.bucket("a", -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String randomString(SplittableRandom random) {
        StringBuilder sb = new StringBuilder();
        int codePoints = random.nextInt(16);
        for (int i = 0; i < codePoints; i++) {
            // Mix ASCII, 2-, 3- and 4-byte UTF-8 so every tail length sees negative bytes.
            int cp =
                    switch (random.nextInt(4)) {
                        case 0 -> random.nextInt(0x20, 0x80);
                        case 1 -> random.nextInt(0x80, 0x800);
                        case 2 -> random.nextInt(0x800, 0xD800);
                        default -> random.nextInt(0x10000, 0x110000);
                    };
            sb.appendCodePoint(cp);
        }
        return sb.toString();
    }

    // The oracle helpers mirror how Hive's ObjectInspectorUtils.hashCodeMurmur prepares bytes:
    // Text's UTF-8 bytes for strings, a big-endian ByteBuffer (its default order) for numbers.

    private static int hiveStringHash(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        return Murmur3.hash32(bytes, bytes.length);
    }

    private static int hiveIntHash(int key) {
        return Murmur3.hash32(
                ByteBuffer.allocate(Integer.BYTES).putInt(key).array(), Integer.BYTES);
    }

    private static int hiveBigintHash(long key) {
        return Murmur3.hash32(ByteBuffer.allocate(Long.BYTES).putLong(key).array(), Long.BYTES);
    }
}
