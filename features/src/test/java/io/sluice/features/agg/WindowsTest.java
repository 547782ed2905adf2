package io.sluice.features.agg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.testing.Definition;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowsTest {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;

    @Test
    void aDayOfMinuteTilesIsReadFromBoundedTilesThatCoverItExactly() {
        assertThat(Windows.midSize(MINUTE, HOUR)).isEqualTo(6 * MINUTE);
        for (long length :
                new long[] {24 * HOUR, 7 * HOUR + 13 * MINUTE, 59 * MINUTE, 5 * MINUTE}) {
            for (long offset : new long[] {0, 1, 5, 6, 17, 59, 60, 61, 1439}) {
                long from = 1_000 * HOUR + offset * MINUTE;
                long to = from + length;
                Windows.Cover cover = Windows.cover(from, to, MINUTE, HOUR);
                assertThat(cover.coarse().size()).isLessThanOrEqualTo(24);
                assertThat(cover.mid().size()).isLessThanOrEqualTo(2 * 9);
                assertThat(cover.fine().size()).isLessThanOrEqualTo(2 * 5);
                // Every minute of [from, to) is covered exactly once.
                List<Long> minutes = new ArrayList<>(cover.fine());
                for (long c : cover.coarse()) {
                    assertThat(c % HOUR).isZero();
                    for (long m = c; m < c + HOUR; m += MINUTE) {
                        minutes.add(m);
                    }
                }
                for (long c : cover.mid()) {
                    assertThat(c % (6 * MINUTE)).isZero();
                    for (long m = c; m < c + 6 * MINUTE; m += MINUTE) {
                        minutes.add(m);
                    }
                }
                minutes.sort(null);
                List<Long> expected = new ArrayList<>();
                for (long m = from; m < to; m += MINUTE) {
                    expected.add(m);
                }
                assertThat(minutes).as("[%d, %d)", from, to).isEqualTo(expected);
            }
        }
    }

    @Test
    void theMidTileDividesTheCoarseTileNearItsSquareRoot() {
        assertThat(Windows.midSize(1, 60)).isEqualTo(6);
        assertThat(Windows.midSize(2, 8)).isEqualTo(4); // two fine tiles, half a coarse one
        assertThat(Windows.midSize(1, 100)).isEqualTo(10);
        assertThat(Windows.midSize(1, 7)).isEqualTo(7); // no divisor: no mid tiles
        assertThat(Windows.midSize(5, 5)).isEqualTo(5);
        Windows.Cover prime = Windows.cover(3, 40, 1, 7);
        assertThat(prime.mid()).isEmpty();
        assertThat(prime.coarse()).containsExactly(7L, 14L, 21L, 28L);
    }

    @Test
    void shortWindowsAreReadFromFineTilesOnly() {
        Windows.Cover cover = Windows.cover(10 * MINUTE, 15 * MINUTE, MINUTE, HOUR);
        assertThat(cover.coarse()).isEmpty();
        assertThat(cover.mid()).isEmpty();
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
            WindowReads.value(day, cover, recording(read));
            List<String> planned = new ArrayList<>();
            cover.coarse().forEach(s -> planned.add("coarse " + s));
            cover.mid().forEach(s -> planned.add("mid " + s));
            cover.fine().forEach(s -> planned.add("fine " + s));
            if (cover.hasHead()) {
                planned.add("head " + cover.headStart() + " " + t);
            }
            assertThat(read).as("t=%d", t).isEqualTo(planned);
            List<String> viaTime = new ArrayList<>();
            WindowReads.value(day, t, MINUTE, HOUR, recording(viaTime));
            assertThat(viaTime).isEqualTo(read);
        }
    }

    /**
     * A time between two whole milliseconds is read at its two ends: the tail at floor_ms(t), the
     * head up to ceil_ms(t). Rounding t first, up (as the training-set builder did) or down (as an
     * online read of an ISO {@code at} did), drops events the definition counts.
     */
    @Test
    void aSubMillisecondTimeIsReadAtBothItsEnds() {
        FeatureDef hour =
                new FeatureDef(
                        "n_1h",
                        io.sluice.config.Aggregation.COUNT,
                        -1,
                        HOUR,
                        io.sluice.config.FeatureType.LONG,
                        false);
        long edge = 1_000 * HOUR + 17 * MINUTE; // a tile edge inside an hour
        List<EventEntry> events = new ArrayList<>();
        EntityTiles tiles = new EntityTiles(MINUTE, HOUR);
        long[] offsets = {
            -HOUR - MINUTE - 1, // before the tail of the window at edge − ε
            -HOUR - MINUTE, // that tail, exactly
            -HOUR - 1, // in the window at edge − ε, out of it at the edge: one tile later
            -HOUR,
            -MINUTE,
            -1, // the last millisecond before the edge
            0, // at the edge
            1
        };
        for (int i = 0; i < offsets.length; i++) {
            EventEntry e = new EventEntry(edge + offsets[i], "e" + i, new Object[0]);
            events.add(e);
            tiles.add(e);
        }
        long ms = 1_000_000;
        long e = edge * ms;
        long[] times = {
            e - 591_000,
            e - 1,
            e,
            e + 1_000,
            e + 1,
            e - ms - 1,
            e - ms,
            e - ms + 1,
            e - ms + 591_000
        };
        for (long t : times) {
            Instant at = Instant.ofEpochSecond(0, t);
            long tail = Windows.floorMillis(at);
            long headEnd = Windows.ceilMillis(at);
            assertThat(tail).isEqualTo(Math.floorDiv(t, ms));
            assertThat(headEnd).isEqualTo(Math.floorDiv(t + ms - 1, ms));
            Windows.Cover cover = Windows.cover(hour, tail, headEnd, MINUTE, HOUR);
            assertThat(cover.to())
                    .as("floor_s(t) at %s", at)
                    .isEqualTo(Windows.floor(tail, MINUTE));
            assertThat(cover.headEnd()).isEqualTo(headEnd);
            Object want = Definition.valueAtNanos(hour, MINUTE, t, events).value();
            assertThat(WindowReads.value(hour, tail, headEnd, MINUTE, HOUR, tiles).value())
                    .as("n_1h at %s", at)
                    .isEqualTo(want);
        }
        // In the last millisecond before the edge the head is the whole tile before it, and the
        // window still reaches back to edge − 1h − 1min: five events. Rounded up to the edge first
        // (the old builder), the tail moves a tile later and gives three; truncated to edge − 1ms
        // (the old online read of an ISO at), the head misses the event at edge − 1ms: four.
        Instant last = Instant.ofEpochSecond(0, e - 591_000);
        Windows.Cover cover =
                Windows.cover(
                        hour, Windows.floorMillis(last), Windows.ceilMillis(last), MINUTE, HOUR);
        assertThat(cover.headStart()).isEqualTo(edge - MINUTE);
        assertThat(cover.headEnd()).isEqualTo(edge);
        assertThat(
                        WindowReads.value(
                                        hour,
                                        Windows.floorMillis(last),
                                        Windows.ceilMillis(last),
                                        MINUTE,
                                        HOUR,
                                        tiles)
                                .value())
                .isEqualTo(5L);
        assertThat(WindowReads.value(hour, edge, MINUTE, HOUR, tiles).value()).isEqualTo(3L);
        assertThat(WindowReads.value(hour, edge - 1, MINUTE, HOUR, tiles).value()).isEqualTo(4L);
        // A time's ends are at most a millisecond apart, the head's not before the tail.
        assertThatThrownBy(() -> Windows.cover(hour, edge, edge + 2, MINUTE, HOUR))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Windows.cover(hour, edge, edge - 1, MINUTE, HOUR))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** An entity known only by an event a ttl and a millisecond before a tile edge. */
    @Test
    void presenceAtASubMillisecondTimeIsReadAtBothItsEnds() {
        ViewDef view = purchasesView();
        long edge = 1_000 * HOUR + 17 * MINUTE;
        EventEntry only =
                new EventEntry(
                        edge - view.ttlMillis() - 1, "only", new Object[] {9.5, "books", "card"});
        EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
        tiles.add(only);
        long ms = 1_000_000;
        for (long t : new long[] {edge * ms - 591_000, edge * ms - 1, edge * ms, edge * ms + 1}) {
            Instant at = Instant.ofEpochSecond(0, t);
            boolean want =
                    Definition.valueAtNanos(view, view.presence(), t, List.of(only)).status()
                            != Status.NOT_FOUND;
            assertThat(
                            WindowReads.present(
                                    view, Windows.floorMillis(at), Windows.ceilMillis(at), tiles))
                    .as("known at %s", at)
                    .isEqualTo(want)
                    .isEqualTo(t < edge * ms);
        }
        // Rounded up to the edge, the time before it would find the entity unknown.
        assertThat(WindowReads.present(view, edge, tiles)).isFalse();
    }

    private static ViewDef purchasesView() {
        SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
        return ViewDef.of(
                config.featureViews().stream()
                        .filter(v -> v.name().equals("user_purchases"))
                        .findFirst()
                        .orElseThrow(),
                config.table("purchases").orElseThrow());
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
            public Partial mid(long start, FeatureDef feature) {
                read.add("mid " + start);
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
