package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @ParameterizedTest
    @CsvSource({"500ms, PT0.5S", "30s, PT30S", "15m, PT15M", "1h, PT1H", "7d, PT168H", "0s, PT0S"})
    void shouldParseEverySupportedUnit(String text, Duration expected) {
        assertThat(Durations.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"30", "1.5h", "15 m", "-1s", "1w", "PT1H", "1H", "", "9999999999d"})
    void shouldRejectAnythingElse(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "must be a duration such as 500ms, 30s, 15m, 1h or 7d, got '" + text + "'");
    }

    @ParameterizedTest
    @CsvSource({"PT24H, 1d", "PT90M, 90m", "PT1.5S, 1500ms", "PT2H, 2h", "PT0S, 0s"})
    void shouldFormatInTheLargestEvenUnit(Duration duration, String expected) {
        assertThat(Durations.format(duration)).isEqualTo(expected);
    }
}
