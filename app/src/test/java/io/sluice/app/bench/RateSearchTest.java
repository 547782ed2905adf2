package io.sluice.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The highest-rate search of {@code bench serve}, against made-up capacities. */
class RateSearchTest {

    private final List<Integer> tried = new ArrayList<>();

    private int highest(int capacity, int max) {
        return RateSearch.highestPassing(
                500,
                25,
                max,
                2,
                rate -> {
                    tried.add(rate);
                    return rate <= capacity;
                });
    }

    @Test
    void shouldDoubleUntilARateFailsThenBisectTwice() {
        assertThat(highest(2_600, 64_000)).isEqualTo(2_500);
        assertThat(tried).containsExactly(500, 1_000, 2_000, 4_000, 3_000, 2_500);
    }

    @Test
    void shouldAnswerTheLastStepWhenEveryStepPasses() {
        assertThat(highest(1_000_000, 4_000)).isEqualTo(4_000);
        assertThat(tried).containsExactly(500, 1_000, 2_000, 4_000);
    }

    @Test
    void shouldHalveUntilARatePassesThenBisectTwice() {
        assertThat(highest(300, 64_000)).isEqualTo(250);
        assertThat(tried).containsExactly(500, 250, 375, 312);
    }

    @Test
    void shouldHalveAsFarAsNeeded() {
        assertThat(highest(100, 64_000)).isEqualTo(93);
        assertThat(tried).containsExactly(500, 250, 125, 62, 93, 109);
    }

    @Test
    void shouldAnswerZeroWhenNothingDownToTheLowestRatePasses() {
        assertThat(highest(0, 64_000)).isZero();
        assertThat(tried).containsExactly(500, 250, 125, 62, 31);
    }
}
