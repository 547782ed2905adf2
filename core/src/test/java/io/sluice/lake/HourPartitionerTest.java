package io.sluice.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class HourPartitionerTest {

    @Test
    void shouldNameTheUtcEventHour() {
        long t = Instant.parse("2026-11-21T05:59:59.999Z").toEpochMilli();
        assertThat(HourPartitioner.partition(t)).isEqualTo("dt=2026-11-21/hr=05");
        assertThat(HourPartitioner.partition(t + 1)).isEqualTo("dt=2026-11-21/hr=06");
    }

    @Test
    void shouldFloorTimesBeforeTheEpoch() {
        long t = Instant.parse("1969-12-31T23:30:00Z").toEpochMilli();
        assertThat(HourPartitioner.partition(t)).isEqualTo("dt=1969-12-31/hr=23");
    }

    @Test
    void shouldParsePartitionsBackToTheHourStart() {
        assertThat(HourPartitioner.parse("dt=2026-11-21/hr=05"))
                .isEqualTo(Instant.parse("2026-11-21T05:00:00Z").toEpochMilli());
        assertThatThrownBy(() -> HourPartitioner.parse("dt=2026-11-21/hr=../x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hr=../x");
    }
}
