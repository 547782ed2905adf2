package io.sluice.features.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.features.agg.FeatureValue;

/**
 * DESIGN.md's equality of feature values: counts, integers and strings exactly, floating-point sums
 * to 1e-9 relative (float32 results to float precision); statuses and event times exactly.
 */
public final class SameValue {

    private SameValue() {}

    public static void assertSame(String what, FeatureValue want, FeatureValue got) {
        assertThat(got.status()).as(what).isEqualTo(want.status());
        assertThat(got.eventTime()).as(what).isEqualTo(want.eventTime());
        if (want.value() instanceof Double d) {
            assertThat((Double) got.value())
                    .as(what)
                    .isCloseTo(d, within(Math.abs(d) * 1e-9 + 1e-12));
        } else if (want.value() instanceof Float f) {
            assertThat((Float) got.value())
                    .as(what)
                    .isCloseTo(f, within(Math.abs(f) * 1e-6f + 1e-6f));
        } else {
            assertThat(got.value()).as(what).isEqualTo(want.value());
        }
    }

    /**
     * A training set's cell {@code column} of {@code row}, and its {@code <column>__status}, as a
     * reader sees them, against the definition's value {@code want}.
     */
    public static void assertCell(
            String what, FeatureValue want, java.util.Map<String, Object> row, String column) {
        assertThat(row.get(column + "__status")).as(what).isEqualTo(want.status().name());
        assertSameValue(what, want.value(), row.get(column));
    }

    /**
     * A value as a reader of a training set sees it ({@code got}, e.g. from DuckDB: any number
     * type) against the definition's ({@code want}); null for a value with no event.
     */
    public static void assertSameValue(String what, Object want, Object got) {
        if (want == null) {
            assertThat(got).as(what).isNull();
        } else if (want instanceof Double d) {
            assertThat(((Number) got).doubleValue())
                    .as(what)
                    .isCloseTo(d, within(Math.abs(d) * 1e-9 + 1e-12));
        } else if (want instanceof Float f) {
            assertThat(((Number) got).floatValue())
                    .as(what)
                    .isCloseTo(f, within(Math.abs(f) * 1e-6f + 1e-6f));
        } else if (want instanceof Long l) {
            assertThat(((Number) got).longValue()).as(what).isEqualTo(l);
        } else if (want instanceof Integer n) {
            assertThat(((Number) got).intValue()).as(what).isEqualTo(n);
        } else {
            assertThat(String.valueOf(got)).as(what).isEqualTo(want.toString());
        }
    }
}
