package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lake.HourPartitioner;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DuplicateRuleTest {

    private static final long HOUR = 3_600_000L;

    @Test
    void theEarliestEventTimeWins() {
        Event early = new Event("a", "k", 1_000, new byte[] {9});
        Event late = new Event("a", "k", 2_000, new byte[] {1});
        assertThat(DuplicateRule.compare(early, late)).isNegative();
        assertThat(DuplicateRule.compare(late, early)).isPositive();
    }

    @Test
    void aTieInTimeGoesToTheSmallerPayloadDigest() throws Exception {
        byte[] p = {1, 2, 3};
        byte[] q = {1, 2, 4};
        byte[] dp = MessageDigest.getInstance("SHA-256").digest(p);
        byte[] dq = MessageDigest.getInstance("SHA-256").digest(q);
        int expected = Integer.signum(Arrays.compareUnsigned(dp, dq));
        assertThat(expected).isNotZero();
        assertThat(
                        Integer.signum(
                                DuplicateRule.compare(
                                        new Event("a", "k", 5, p), new Event("a", "k", 5, q))))
                .isEqualTo(expected);
        assertThat(
                        Integer.signum(
                                DuplicateRule.compare(
                                        new Event("a", "k", 5, q), new Event("a", "k", 5, p))))
                .isEqualTo(-expected);
    }

    @Test
    void theDigestIsAPrefixOfTheSha256() throws Exception {
        byte[] payload = "some record".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] full = MessageDigest.getInstance("SHA-256").digest(payload);
        assertThat(DuplicateRule.digest(payload))
                .hasSize(DuplicateRule.DIGEST_BYTES)
                .isEqualTo(Arrays.copyOf(full, DuplicateRule.DIGEST_BYTES));
    }

    @Test
    void exactRepeatsCompareEqual() {
        assertThat(
                        DuplicateRule.compare(
                                new Event("a", "k", 5, new byte[] {7}),
                                new Event("a", "k", 5, new byte[] {7})))
                .isZero();
    }

    @Test
    void theUnitIsTheIdAndTheLakesHourPartition() {
        for (long t : new long[] {0, HOUR - 1, HOUR, 5 * HOUR + 17, -1}) {
            assertThat(DuplicateRule.hour(t)).isEqualTo(HourPartitioner.hourStart(t));
        }
        assertThat(DuplicateRule.unit("a", HOUR - 1)).isNotEqualTo(DuplicateRule.unit("a", HOUR));
        assertThat(DuplicateRule.unit("a", HOUR)).isEqualTo(DuplicateRule.unit("a", 2 * HOUR - 1));
    }
}
