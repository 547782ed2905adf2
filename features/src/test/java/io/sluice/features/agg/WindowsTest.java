package io.sluice.features.agg;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowsTest {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;

    @Test
    void aDayOfMinuteTilesIsReadFromBoundedTilesThatCoverItExactly() {
        for (long offset : new long[] {0, 1, 17, 59, 60, 61, 1439}) {
            long from = 1_000 * HOUR + offset * MINUTE;
            long to = from + 24 * HOUR;
            Windows.Cover cover = Windows.cover(from, to, MINUTE, HOUR);
            assertThat(cover.coarse().size()).isLessThanOrEqualTo(24);
            assertThat(cover.fine().size()).isLessThanOrEqualTo(2 * 59);
            // Every minute of [from, to) is covered exactly once.
            List<Long> minutes = new ArrayList<>(cover.fine());
            for (long c : cover.coarse()) {
                assertThat(c % HOUR).isZero();
                for (long m = c; m < c + HOUR; m += MINUTE) {
                    minutes.add(m);
                }
            }
            minutes.sort(null);
            List<Long> expected = new ArrayList<>();
            for (long m = from; m < to; m += MINUTE) {
                expected.add(m);
            }
            assertThat(minutes).isEqualTo(expected);
        }
    }

    @Test
    void shortWindowsAreReadFromFineTilesOnly() {
        Windows.Cover cover = Windows.cover(10 * MINUTE, 15 * MINUTE, MINUTE, HOUR);
        assertThat(cover.coarse()).isEmpty();
        assertThat(cover.fine())
                .containsExactly(10 * MINUTE, 11 * MINUTE, 12 * MINUTE, 13 * MINUTE, 14 * MINUTE);
    }

    @Test
    void valueReadsExactlyTheTilesOfItsCover() {
        FeatureDef day =
                new FeatureDef(
                        "n_24h",
                        io.sluice.config.Aggregation.COUNT,
                        -1,
                        24 * HOUR,
                        io.sluice.config.FeatureType.LONG,
                        false);
        for (long t :
                new long[] {
                    1_000 * HOUR, 1_000 * HOUR + 1, 1_000 * HOUR + 17 * MINUTE + 5, 1_001 * HOUR - 1
                }) {
            Windows.Cover cover = Windows.cover(day, t, MINUTE, HOUR);
            assertThat(cover.headStart()).isEqualTo(Windows.floor(t, MINUTE));
            assertThat(cover.headEnd()).isEqualTo(t);
            List<String> read = new ArrayList<>();
            Windows.value(day, cover, recording(read));
            List<String> planned = new ArrayList<>();
            cover.coarse().forEach(s -> planned.add("coarse " + s));
            cover.fine().forEach(s -> planned.add("fine " + s));
            if (cover.hasHead()) {
                planned.add("head " + cover.headStart() + " " + t);
            }
            assertThat(read).as("t=%d", t).isEqualTo(planned);
            List<String> viaTime = new ArrayList<>();
            Windows.value(day, t, MINUTE, HOUR, recording(viaTime));
            assertThat(viaTime).isEqualTo(read);
        }
    }

    /** A reader of empty tiles that records what is read, in order. */
    static Windows.TileReader recording(List<String> read) {
        return new Windows.TileReader() {
            @Override
            public Partial fine(long start, FeatureDef feature) {
                read.add("fine " + start);
                return new Partial();
            }

            @Override
            public Partial coarse(long start, FeatureDef feature) {
                read.add("coarse " + start);
                return new Partial();
            }

            @Override
            public Partial head(long start, long before, FeatureDef feature) {
                read.add("head " + start + " " + before);
                return new Partial();
            }
        };
    }

    @Test
    void theReferenceViewsMapOntoTheLibrary() {
        SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
        TableConfig purchases = config.table("purchases").orElseThrow();
        ViewDef view =
                ViewDef.of(
                        config.featureViews().stream()
                                .filter(v -> v.name().equals("user_purchases"))
                                .findFirst()
                                .orElseThrow(),
                        purchases);
        assertThat(view.tileMillis()).isEqualTo(MINUTE);
        assertThat(view.coarseMillis()).isEqualTo(HOUR);
        assertThat(view.fields()).containsExactly("price", "category", "payment_method");
        FeatureDef spend = view.feature("spend_24h");
        assertThat(spend.fractional()).isTrue();
        assertThat(spend.windowMillis()).isEqualTo(24 * HOUR);
        assertThat(view.feature("last_category").windowMillis()).isEqualTo(7 * 24 * HOUR);
        assertThat(view.feature("purchases_1h").valueIndex()).isEqualTo(-1);
    }
}
