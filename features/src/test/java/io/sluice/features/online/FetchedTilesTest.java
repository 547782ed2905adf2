package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.Aggregation;
import io.sluice.config.FeatureType;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The reader over the tiles a store returned gives what the features job's own tiles give, for
 * every feature at any time, from all of an entity's tiles or only those the windows cover (what
 * {@link FeatureReader} fetches): its sorted arrays of starts name the same tiles at every window's
 * edges as the job's maps do, and the store's payloads decode to the same partials. A presence that
 * the windows' tiles show is a presence the definition sees.
 */
class FetchedTilesTest {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;

    @Test
    void shouldAnswerEveryWindowAsTheTilesItWasWrittenFrom() {
        List<FeatureDef> features = new ArrayList<>();
        for (long w : new long[] {5 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR}) {
            features.add(
                    new FeatureDef(
                            "count_" + w, Aggregation.COUNT, -1, w, FeatureType.LONG, false));
            for (Aggregation a :
                    List.of(Aggregation.SUM, Aggregation.MIN, Aggregation.MAX, Aggregation.AVG)) {
                features.add(new FeatureDef(a + "_" + w, a, 0, w, FeatureType.DOUBLE, true));
            }
            features.add(
                    new FeatureDef("last_" + w, Aggregation.LAST, 1, w, FeatureType.STRING, false));
        }
        ViewDef view =
                new ViewDef(
                        "v", MINUTE, HOUR, 2 * 24 * HOUR, List.of("price", "category"), features);
        SplittableRandom random = new SplittableRandom(11);
        long start = 1_700_000_000_000L;
        long end = start + 30 * HOUR;
        EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
        for (int i = 0; i < 400; i++) {
            // Bursts and gaps, so windows start and end on tiles that exist and tiles that do not.
            long ts =
                    i % 4 == 0
                            ? start + random.nextLong(end - start)
                            : start + 7 * HOUR + random.nextLong(2 * HOUR);
            tiles.add(
                    new EventEntry(
                            ts,
                            "e" + i,
                            new Object[] {random.nextDouble() * 100, "c" + random.nextInt(5)}));
        }
        OnlineStore.Found found = new OnlineStore.Found();
        for (OnlineStore.TileWrite w : TileWrites.of(view, "u", tiles, tiles.tiles().keySet())) {
            found.of(w.key().level()).put(w.key().start(), w.payload());
        }
        FetchedTiles fetched = new FetchedTiles(found);

        int checked = 0;
        int present = 0;
        for (int i = 0; i < 500; i++) {
            // Times anywhere from before the first event to after the last, some on tile edges.
            long t = start - 2 * HOUR + random.nextLong(end - start + 4 * HOUR);
            if (i % 5 == 0) {
                t = Windows.floor(t, i % 10 == 0 ? HOUR : MINUTE);
            }
            // As the reader fetches them: only the tiles the windows at t cover.
            AskedTiles asked = new AskedTiles(view);
            for (FeatureDef f : features) {
                asked.add(Windows.cover(f, t, view.tileMillis(), view.coarseMillis()));
            }
            OnlineStore.Found covered = new OnlineStore.Found();
            for (OnlineStore.TileRange r : asked.ranges()) {
                for (long s = r.from(); s < r.to(); s += r.step()) {
                    byte[] payload = found.of(r.level()).get(s);
                    if (payload != null) {
                        covered.of(r.level()).put(s, payload);
                    }
                }
            }
            FetchedTiles windows = new FetchedTiles(covered);
            for (FeatureDef f : features) {
                Windows.Cover cover = Windows.cover(f, t, view.tileMillis(), view.coarseMillis());
                Object want = WindowReads.partial(f, cover, tiles).value(f);
                assertThat(WindowReads.partial(f, cover, fetched).value(f))
                        .as("%s at %d from every tile", f.name(), t)
                        .isEqualTo(want);
                assertThat(WindowReads.partial(f, cover, windows).value(f))
                        .as("%s at %d from the windows' tiles", f.name(), t)
                        .isEqualTo(want);
                checked++;
            }
            boolean known = WindowReads.present(view, t, tiles);
            assertThat(WindowReads.present(view, t, fetched))
                    .as("presence at %d", t)
                    .isEqualTo(known);
            if (windows.showsPresence(view, t, t)) {
                assertThat(known).as("shown present at %d", t).isTrue();
            }
            present += known ? 1 : 0;
        }
        assertThat(checked).isEqualTo(500 * features.size());
        // Both kinds of time were asked: with the entity known and before it was.
        assertThat(present).isBetween(1, 499);
    }
}
