package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The training-set job sorts a pass's rows by {@link SpineOrder.EntityOrder}'s one string key
 * (Flink's {@code sortPartition} compares only the first field of a tuple key): its order must be
 * that of (bucket, key, time) for every bucket, key and time a spine can hold.
 */
class EntityOrderTest {

    record Sortable(int bucket, String key, long time) {
        String order() {
            return SpineOrder.EntityOrder.of(bucket, key, time);
        }
    }

    private static final Comparator<Sortable> TUPLE =
            Comparator.comparingInt(Sortable::bucket)
                    .thenComparing(Sortable::key)
                    .thenComparingLong(Sortable::time);

    @Test
    void shouldOrderAsBucketThenKeyThenTime() {
        SplittableRandom random = new SplittableRandom(14);
        String[] keys = {"", "a", "ab", "abc", "b", "u000001", "u000010", "u1", "é", "日本", "z"};
        long[] times = {
            Long.MIN_VALUE,
            -86_400_000L,
            -1,
            0,
            1,
            65_535,
            65_536,
            1_795_140_523_249L,
            Long.MAX_VALUE
        };
        int[] buckets = {0, 1, 2, 15, 16, 65_535, 65_536, 99_999, 100_000};
        List<Sortable> rows = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            rows.add(
                    new Sortable(
                            buckets[random.nextInt(buckets.length)],
                            keys[random.nextInt(keys.length)],
                            random.nextBoolean()
                                    ? times[random.nextInt(times.length)]
                                    : random.nextLong()));
        }
        List<Sortable> byTuple = new ArrayList<>(rows);
        byTuple.sort(TUPLE);
        List<Sortable> byString = new ArrayList<>(rows);
        byString.sort(Comparator.comparing(Sortable::order));
        assertThat(byString).isEqualTo(byTuple);
    }

    @Test
    void shouldKeepAnEntitysRowsTogetherWhenOneKeyIsAPrefixOfAnother() {
        // "ab" at any time sorts after every row of "a", and before every row of "abc".
        assertThat(new Sortable(3, "a", Long.MAX_VALUE).order())
                .isLessThan(new Sortable(3, "ab", Long.MIN_VALUE).order());
        assertThat(new Sortable(3, "ab", Long.MAX_VALUE).order())
                .isLessThan(new Sortable(3, "abc", Long.MIN_VALUE).order());
        assertThat(new Sortable(3, "zzz", Long.MAX_VALUE).order())
                .isLessThan(new Sortable(4, "", Long.MIN_VALUE).order());
    }
}
