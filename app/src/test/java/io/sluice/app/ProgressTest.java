package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link Progress}, on a clock the test moves. */
class ProgressTest {

    private long now = 1_000_000_000L;
    private final StringWriter text = new StringWriter();
    private final PrintWriter out = new PrintWriter(text);

    private Progress progress(long total, boolean terminal) {
        return new Progress("check", "samples", total, out, terminal, () -> now);
    }

    private void elapse(Duration d) {
        now += d.toNanos();
    }

    @Test
    void shouldStayQuietOffATerminalUntilThirtySecondsThenPrintPlainLines() {
        try (Progress p = progress(300, false)) {
            elapse(Duration.ofSeconds(29));
            p.advance(145);
            assertThat(text.toString()).isEmpty();
            elapse(Duration.ofSeconds(1));
            p.advance(5);
            assertThat(text.toString())
                    .isEqualTo(
                            "check: 150 / 300 samples (50%), 5.0/s, ~30s left, 30s so far"
                                    + System.lineSeparator());
            elapse(Duration.ofSeconds(10));
            p.advance(100);
            assertThat(text.toString().lines()).hasSize(1);
        }
        // Nothing at the end: the command's report follows.
        assertThat(text.toString().lines()).hasSize(1).noneMatch(l -> l.contains("\r"));
    }

    @Test
    void shouldRedrawOneLineInPlaceOnATerminalAndEndItOnClose() {
        try (Progress p = progress(1_000, true)) {
            elapse(Duration.ofMillis(100));
            p.update(10);
            assertThat(text.toString()).isEmpty(); // not yet half a second
            elapse(Duration.ofMillis(400));
            p.update(250);
            elapse(Duration.ofMillis(500));
            p.update(500);
            assertThat(text.toString())
                    .doesNotContain(System.lineSeparator())
                    .startsWith("\rcheck: 250 / 1,000 samples (25%), 500/s, ~1s left")
                    .contains("\rcheck: 500 / 1,000 samples (50%), 500/s, ~1s left, 1s so far");
        }
        assertThat(text.toString()).endsWith("1s so far\033[K" + System.lineSeparator());
    }

    @Test
    void shouldPrintTheCommandsOwnLinesAboveTheRedrawnLine() {
        try (Progress p = progress(4, true)) {
            elapse(Duration.ofSeconds(1));
            p.advance(1);
            p.println("purchases dt=2026-11-21/hr=03: 336 rows");
            p.advance(1);
        }
        assertThat(text.toString())
                .isEqualTo(
                        "\rcheck: 1 / 4 samples (25%), 1.0/s, ~3s left, 1s so far\033[K"
                                + "\r\033[Kpurchases dt=2026-11-21/hr=03: 336 rows"
                                + System.lineSeparator()
                                + "\rcheck: 2 / 4 samples (50%), 2.0/s, ~1s left, 1s so far\033[K"
                                + "\rcheck: 2 / 4 samples (50%), 2.0/s, ~1s left, 1s so far\033[K"
                                + System.lineSeparator());
    }

    @Test
    void shouldShowCountAndRateWithoutAnEstimateWhenTheTotalIsUnknown() {
        Progress p = progress(0, false);
        elapse(Duration.ofMinutes(2));
        p.update(12_000);
        assertThat(p.line(now)).isEqualTo("check: 12,000 samples, 100/s, 2m00s so far");
    }

    @Test
    void shouldReturnTheWorksResultOrRethrowItsFailure() throws Exception {
        Progress p = progress(10, false);
        assertThat(p.await(CompletableFuture.completedFuture("done"), () -> 10)).isEqualTo("done");
        assertThatThrownBy(
                        () ->
                                p.await(
                                        CompletableFuture.failedFuture(new IOException("disk")),
                                        () -> 0))
                .isInstanceOf(IOException.class)
                .hasMessage("disk");
    }

    @Test
    void shouldFormatDurationsForPeople() {
        assertThat(Progress.format(Duration.ofSeconds(59))).isEqualTo("59s");
        assertThat(Progress.format(Duration.ofSeconds(61))).isEqualTo("1m01s");
        assertThat(Progress.format(Duration.ofSeconds(3_720))).isEqualTo("1h02m");
    }
}
