package io.sluice.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ServeLoadTest {

    private static PrometheusHistogram counted(long requests) {
        return new PrometheusHistogram(
                new double[] {0.001, Double.POSITIVE_INFINITY}, new long[] {requests, requests});
    }

    @Test
    void shouldScrapeAgainUntilTheServerHasCountedEveryAnsweredRequest() {
        AtomicInteger scrapes = new AtomicInteger();
        // The server's end handlers record the last two answers after the load has ended.
        PrometheusHistogram server =
                ServeLoad.counting(
                        () -> counted(498 + Math.min(2, scrapes.getAndIncrement())),
                        500,
                        Duration.ofSeconds(30));

        assertThat(server.count()).isEqualTo(500);
        assertThat(scrapes).hasValue(3);
    }

    @Test
    void shouldGiveTheLastScrapeWhenTheServerNeverCountsThemAll() {
        AtomicInteger scrapes = new AtomicInteger();
        PrometheusHistogram server =
                ServeLoad.counting(
                        () -> {
                            scrapes.incrementAndGet();
                            return counted(0);
                        },
                        500,
                        Duration.ofMillis(50));

        assertThat(server.count()).isZero();
        assertThat(scrapes.get()).isGreaterThan(1);
    }
}
