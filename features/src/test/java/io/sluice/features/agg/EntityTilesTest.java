package io.sluice.features.agg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EntityTilesTest {

    private static final long TILE = 60_000;

    private static List<EventEntry> events(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<EventEntry> events = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            // Few distinct times, so many ties in time are broken by id.
            events.add(
                    new EventEntry(
                            random.nextLong(30) * 7_919,
                            "id-" + random.nextInt(1_500),
                            new Object[0]));
        }
        return events;
    }

    private static Map<Long, List<EventEntry>> content(EntityTiles tiles) {
        Map<Long, List<EventEntry>> out = new java.util.TreeMap<>();
        tiles.tiles().forEach((start, tile) -> out.put(start, List.copyOf(tile.events())));
        return out;
    }

    @Test
    void shouldBuildTheSameTilesFromOrderedRunsAsEventByEvent() {
        for (long seed = 1; seed <= 5; seed++) {
            List<EventEntry> events = events(seed);
            EntityTiles one = new EntityTiles(TILE, TILE * 60);
            events.forEach(one::add);

            // As the warehouse gives them: distinct ids, sorted by (time, id).
            List<EventEntry> distinct =
                    new ArrayList<>(
                            one.tiles().values().stream()
                                    .flatMap(t -> t.events().stream())
                                    .toList());
            distinct.sort(
                    Comparator.comparingLong(EventEntry::ts)
                            .thenComparing(EventEntry::id, Partial::compareIds));
            EntityTiles ordered = new EntityTiles(TILE, TILE * 60);
            ordered.addAll(distinct);
            assertThat(content(ordered)).isEqualTo(content(one));

            // Out of order, with repeats: it falls back to adding one by one.
            EntityTiles unordered = new EntityTiles(TILE, TILE * 60);
            unordered.addAll(events);
            assertThat(content(unordered)).isEqualTo(content(one));

            // Tiles built from a run still refuse a repeated id afterwards.
            assertThat(ordered.add(distinct.get(0))).isFalse();
        }
    }
}
