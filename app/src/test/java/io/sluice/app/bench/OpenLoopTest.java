package io.sluice.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The schedule and the bookkeeping; no timing is asserted. */
class OpenLoopTest {

    @Test
    void shouldDueEachCallAtAFixedIntervalFromTheStart() {
        assertThat(OpenLoop.intendedNanos(1_000, 500, 0)).isEqualTo(1_000);
        assertThat(OpenLoop.intendedNanos(1_000, 500, 3)).isEqualTo(6_001_000);
        assertThat(OpenLoop.intendedNanos(0, 3, 1)).isEqualTo(333_333_333);
        assertThat(OpenLoop.calls(500, Duration.ofSeconds(10))).isEqualTo(5_000);
        assertThat(OpenLoop.calls(50, Duration.ofMillis(10))).isEqualTo(1);
    }

    @Test
    void shouldRecordEveryCallAndCountFailuresAndCallsNeverAnswered() {
        OpenLoop.Result result =
                OpenLoop.run(
                        i ->
                                switch (i) {
                                    case 3 ->
                                            CompletableFuture.failedFuture(
                                                    new IllegalStateException("refused"));
                                    case 5 -> new CompletableFuture<>(); // never completes
                                    case 7 -> throw new IllegalStateException("cannot send");
                                    default -> CompletableFuture.completedFuture("ok");
                                },
                        1_000_000,
                        Duration.ofNanos(10_000),
                        Duration.ofMinutes(1),
                        Duration.ZERO);

        assertThat(result.planned()).isEqualTo(10);
        assertThat(result.calls()).isEqualTo(10);
        assertThat(result.latencies().getTotalCount()).isEqualTo(10);
        assertThat(result.errors()).isEqualTo(2);
        assertThat(result.firstError()).isIn("refused", "cannot send");
        assertThat(result.unfinished()).isEqualTo(1);
        assertThat(result.clean()).isFalse();
    }

    @Test
    void shouldStopSendingOnceTheOldestOpenCallIsTooLate() {
        OpenLoop.Result result =
                OpenLoop.run(
                        i -> new CompletableFuture<>(), // never answers
                        1_000_000,
                        Duration.ofNanos(10_000),
                        Duration.ZERO,
                        Duration.ZERO);

        assertThat(result.planned()).isEqualTo(10);
        assertThat(result.calls()).isEqualTo(1);
        assertThat(result.unfinished()).isEqualTo(1);
        assertThat(result.overloaded()).isTrue();
        assertThat(result.clean()).isFalse();
    }
}
