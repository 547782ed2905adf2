package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IsoInstantsTest {

    @Test
    void shouldAgreeWithJavaTimeOnRandomInstants() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 20_000; i++) {
            Instant t =
                    Instant.ofEpochSecond(
                            random.nextLong(-2_000_000_000L, 4_000_000_000L),
                            random.nextInt(1_000_000_000));
            String text =
                    random.nextBoolean()
                            ? t.toString()
                            : OffsetDateTime.ofInstant(
                                            t, java.time.ZoneOffset.ofHoursMinutes(5, 30))
                                    .toString();
            assertThat(IsoInstants.parse(text))
                    .as("seed %d: %s", seed, text)
                    .isEqualTo(Instant.parse(text));
        }
    }

    @Test
    void shouldTakeTheFastPathForTheCommonShapes() {
        assertThat(IsoInstants.fastPath("2026-11-21T10:15:00Z"))
                .isEqualTo(Instant.parse("2026-11-21T10:15:00Z"));
        assertThat(IsoInstants.fastPath("2026-11-21T10:15:00.25Z"))
                .isEqualTo(Instant.parse("2026-11-21T10:15:00.250Z"));
        assertThat(IsoInstants.fastPath("2026-11-21T12:15:00+02:00"))
                .isEqualTo(Instant.parse("2026-11-21T10:15:00Z"));
        assertThat(IsoInstants.fastPath("2026-11-21T10:15Z")).isNull();
    }

    @Test
    void shouldAcceptTheOddShapesJavaTimeAccepts() {
        for (String odd : new String[] {"2026-11-21T24:00:00Z", "2026-11-21T10:15:00.Z"}) {
            assertThat(IsoInstants.parse(odd)).as(odd).isEqualTo(Instant.parse(odd));
        }
    }

    @Test
    void shouldRejectWhatJavaTimeRejects() {
        for (String bad :
                new String[] {
                    "2026-02-30T00:00:00Z", "2026-11-21T10:15:00", "2026-11-21 10:15:00Z"
                }) {
            assertThatThrownBy(() -> IsoInstants.parse(bad))
                    .as(bad)
                    .isInstanceOf(DateTimeParseException.class);
        }
    }
}
