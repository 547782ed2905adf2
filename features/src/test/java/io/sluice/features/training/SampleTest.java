package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.lake.HiveBucketing;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SampleTest {

    private static Set<String> selected(Sample sample, int keys) {
        Sample.Selector s = sample.selector(16);
        Set<String> out = new HashSet<>();
        for (int i = 0; i < keys; i++) {
            String key = "u" + i;
            if (s.selects(key, HiveBucketing.bucket(key, 16))) {
                out.add(key);
            }
        }
        return out;
    }

    @Test
    void shouldSelectTheFractionAskedForTheSameWayEveryTime() {
        for (double f : List.of(0.05, 0.2, 0.5, 1.0)) {
            Set<String> a = selected(new Sample(f, 7), 40_000);
            assertThat(a.size() / 40_000.0).as("fraction %s", f).isCloseTo(f, within(0.02));
            assertThat(selected(new Sample(f, 7), 40_000)).isEqualTo(a);
        }
        assertThat(selected(new Sample(0.2, 8), 40_000))
                .isNotEqualTo(selected(new Sample(0.2, 7), 40_000));
    }

    @Test
    void shouldTakeWholeBucketsFirst() {
        assertThat(new Sample(0.05, 7).buckets(16)).hasSize(1);
        assertThat(new Sample(0.25, 7).buckets(16)).hasSize(4);
        assertThat(new Sample(1.0, 7).buckets(16)).hasSize(16);
        // 25% of 16 buckets is 4 whole buckets: every key in them, none elsewhere.
        Sample quarter = new Sample(0.25, 3);
        List<Integer> buckets = quarter.buckets(16);
        Sample.Selector s = quarter.selector(16);
        for (int i = 0; i < 5_000; i++) {
            String key = "k" + i;
            int b = HiveBucketing.bucket(key, 16);
            assertThat(s.selects(key, b)).isEqualTo(buckets.contains(b));
        }
    }

    @Test
    void shouldRefuseAFractionOutsideZeroToOne() {
        assertThatThrownBy(() -> new Sample(0, 1)).hasMessageContaining("--sample");
        assertThatThrownBy(() -> new Sample(1.5, 1)).hasMessageContaining("--sample");
    }
}
