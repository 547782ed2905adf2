package io.sluice.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusHistogramTest {

    private static final Map<String, String> SERIES =
            Map.of("endpoint", "/get-online-features", "status", "200");

    private static String scrape(long first, long second, long third) {
        String ok = "endpoint=\"/get-online-features\",status=\"200\"";
        return String.join(
                "\n",
                "# HELP sluice_serve_requests_seconds HTTP requests",
                "# TYPE sluice_serve_requests_seconds histogram",
                "sluice_serve_requests_seconds_bucket{" + ok + ",le=\"0.001\"} " + first,
                "sluice_serve_requests_seconds_bucket{" + ok + ",le=\"0.002\"} " + second,
                "sluice_serve_requests_seconds_bucket{" + ok + ",le=\"0.004\"} " + third,
                "sluice_serve_requests_seconds_bucket{" + ok + ",le=\"+Inf\"} " + third,
                "sluice_serve_requests_seconds_count{" + ok + "} " + third,
                "sluice_serve_requests_seconds_bucket{endpoint=\"/get-online-features\","
                        + "status=\"400\",le=\"0.001\"} 7",
                "sluice_serve_requests_seconds_bucket{endpoint=\"/get-online-features\","
                        + "status=\"400\",le=\"+Inf\"} 7",
                "sluice_serve_store_reads_seconds_bucket{le=\"0.001\"} 99",
                "");
    }

    @Test
    void shouldReadOnlyTheBucketsOfTheSeriesWithTheGivenLabels() {
        PrometheusHistogram h =
                PrometheusHistogram.parse(
                        scrape(0, 50, 100), "sluice_serve_requests_seconds", SERIES);

        assertThat(h.bounds()).containsExactly(0.001, 0.002, 0.004, Double.POSITIVE_INFINITY);
        assertThat(h.cumulative()).containsExactly(0, 50, 100, 100);
        assertThat(h.count()).isEqualTo(100);
    }

    @Test
    void shouldInterpolateWithinTheBucketAsHistogramQuantileDoes() {
        PrometheusHistogram h =
                PrometheusHistogram.parse(
                        scrape(0, 50, 100), "sluice_serve_requests_seconds", SERIES);

        assertThat(h.quantile(0.5)).isCloseTo(0.002, within(1e-12));
        assertThat(h.quantile(0.75)).isCloseTo(0.003, within(1e-12));
        assertThat(h.quantile(0.99)).isCloseTo(0.00396, within(1e-12));
    }

    @Test
    void shouldCountOnlyWhatWasObservedBetweenTwoScrapes() {
        PrometheusHistogram before =
                PrometheusHistogram.parse(
                        scrape(10, 20, 30), "sluice_serve_requests_seconds", SERIES);
        PrometheusHistogram after =
                PrometheusHistogram.parse(
                        scrape(10, 70, 130), "sluice_serve_requests_seconds", SERIES);

        PrometheusHistogram between = after.minus(before);

        assertThat(between.cumulative()).containsExactly(0, 50, 100, 100);
        assertThat(between.quantile(0.5)).isCloseTo(0.002, within(1e-12));
    }

    @Test
    void shouldTreatASeriesNotYetScrapedAsEmpty() {
        PrometheusHistogram none =
                PrometheusHistogram.parse("", "sluice_serve_requests_seconds", SERIES);
        PrometheusHistogram after =
                PrometheusHistogram.parse(
                        scrape(0, 50, 100), "sluice_serve_requests_seconds", SERIES);

        assertThat(none.count()).isZero();
        assertThat(none.quantile(0.99)).isNaN();
        assertThat(after.minus(none).cumulative()).containsExactly(0, 50, 100, 100);
    }

    @Test
    void shouldAnswerTheHighestFiniteBoundForAQuantileInTheInfiniteBucket() {
        String text =
                "m_bucket{le=\"0.001\"} 90\n"
                        + "m_bucket{le=\"0.002\"} 95\n"
                        + "m_bucket{le=\"+Inf\"} 100\n";
        PrometheusHistogram h = PrometheusHistogram.parse(text, "m", Map.of());

        assertThat(h.quantile(0.99)).isEqualTo(0.002);
    }
}
