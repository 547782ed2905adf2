package io.sluice.features.agg;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.Aggregation;
import io.sluice.config.FeatureType;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.SameValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The tile library against a brute-force evaluation of DESIGN.md's definition,
 *
 * <pre>
 * value(f, e, t) = AGG { x.field : x.key = e, floor_s(t) − W ≤ x.ts &lt; t }
 * </pre>
 *
 * on random streams: out of order, with re-sent duplicates, ties in time (for {@code last}), null
 * values, empty windows, and query times on the edges ({@code x.ts == t} and {@code x.ts ==
 * floor_s(t) − W}). Each stream's seed is in the failure message; {@code -Dsluice.seed=N} replays
 * one.
 */
class WindowPropertyTest {

    private static final long S = 60_000; // tile: 1 minute
    private static final long C = 10 * S; // coarse tile: 10 minutes
    private static final long T0 = 1_700_000_000_000L - Math.floorMod(1_700_000_000_000L, C);

    /**
     * Values: 0 = quantity (long, nullable), 1 = price (double), 2 = category (string, nullable).
     */
    private static final List<FeatureDef> FEATURES =
            List.of(
                    new FeatureDef(
                            "count_5m", Aggregation.COUNT, -1, 5 * S, FeatureType.LONG, false),
                    new FeatureDef(
                            "count_1h", Aggregation.COUNT, -1, 60 * S, FeatureType.LONG, false),
                    new FeatureDef(
                            "qty_sum_30m", Aggregation.SUM, 0, 30 * S, FeatureType.LONG, false),
                    new FeatureDef(
                            "qty_avg_1h", Aggregation.AVG, 0, 60 * S, FeatureType.DOUBLE, false),
                    new FeatureDef(
                            "price_sum_2h", Aggregation.SUM, 1, 120 * S, FeatureType.DOUBLE, true),
                    new FeatureDef(
                            "price_sum_1m_float", Aggregation.SUM, 1, S, FeatureType.FLOAT, true),
                    new FeatureDef(
                            "price_min_1h", Aggregation.MIN, 1, 60 * S, FeatureType.DOUBLE, true),
                    new FeatureDef(
                            "price_max_1h", Aggregation.MAX, 1, 60 * S, FeatureType.DOUBLE, true),
                    new FeatureDef(
                            "qty_max_10m_int", Aggregation.MAX, 0, 10 * S, FeatureType.INT, false),
                    new FeatureDef(
                            "price_avg_3h", Aggregation.AVG, 1, 180 * S, FeatureType.DOUBLE, true),
                    new FeatureDef(
                            "last_category_15m",
                            Aggregation.LAST,
                            2,
                            15 * S,
                            FeatureType.STRING,
                            false),
                    new FeatureDef(
                            "last_category_ttl",
                            Aggregation.LAST,
                            2,
                            240 * S,
                            FeatureType.STRING,
                            false),
                    new FeatureDef(
                            "last_qty_1h", Aggregation.LAST, 0, 60 * S, FeatureType.LONG, false));

    private record Keyed(String key, EventEntry event) {}

    @Test
    void tilesAgreeWithTheDefinitionOnRandomStreams() {
        String fixed = System.getProperty("sluice.seed");
        long checked = 0;
        if (fixed != null) {
            checked += check(Long.parseLong(fixed));
        } else {
            long base = System.nanoTime();
            for (int i = 0; i < 150; i++) {
                checked += check(base + i);
            }
        }
        assertThat(checked).isPositive();
    }

    /** Runs one random stream; returns how many (feature, entity, t) values were compared. */
    private long check(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Keyed> stream = stream(random);
        Map<String, EntityTiles> tiles = new LinkedHashMap<>();
        Set<String> seenIds = new HashSet<>();
        List<Keyed> accepted = new ArrayList<>();
        for (Keyed k : stream) {
            boolean added =
                    tiles.computeIfAbsent(k.key(), x -> new EntityTiles(S, C)).add(k.event());
            // The tile drops a re-sent id, as the pipeline's de-duplication does.
            assertThat(added)
                    .as("seed %d: duplicate handling", seed)
                    .isEqualTo(seenIds.add(k.event().id()));
            if (added) {
                accepted.add(k);
            }
        }
        // The training set's reader, built once per entity and read at every time (its kept
        // partials reused): from the entity's events in (time, id) order, as the warehouse gives
        // them, and from the stream as sent (out of order, re-sent duplicates included).
        Map<String, OrderedTiles> sorted = new LinkedHashMap<>();
        Map<String, OrderedTiles> asSent = new LinkedHashMap<>();
        for (String key : List.of("a", "b", "c", "nobody")) {
            List<EventEntry> inOrder = new ArrayList<>();
            List<EventEntry> sent = new ArrayList<>();
            accepted.stream().filter(k -> k.key().equals(key)).forEach(k -> inOrder.add(k.event()));
            stream.stream().filter(k -> k.key().equals(key)).forEach(k -> sent.add(k.event()));
            inOrder.sort(
                    (x, y) ->
                            x.ts() != y.ts()
                                    ? Long.compare(x.ts(), y.ts())
                                    : Partial.compareIds(x.id(), y.id()));
            sorted.put(key, OrderedTiles.of(S, C, inOrder));
            asSent.put(key, OrderedTiles.of(S, C, sent));
        }
        long compared = 0;
        for (long t : queryTimes(random, accepted)) {
            for (String key : List.of("a", "b", "c", "nobody")) {
                EntityTiles entity = tiles.getOrDefault(key, new EntityTiles(S, C));
                for (FeatureDef f : FEATURES) {
                    FeatureValue actual = entity.value(f, t);
                    FeatureValue expected = bruteForce(f, key, t, accepted);
                    String what =
                            String.format("seed %d, %s, key %s, t %d", seed, f.name(), key, t);
                    SameValue.assertSame(what, expected, actual);
                    SameValue.assertSame(
                            what + ", ordered tiles",
                            expected,
                            WindowReads.value(f, t, S, C, sorted.get(key)));
                    SameValue.assertSame(
                            what + ", ordered tiles as sent",
                            expected,
                            WindowReads.value(f, t, S, C, asSent.get(key)));
                    compared++;
                }
            }
        }
        return compared;
    }

    private static List<Keyed> stream(SplittableRandom random) {
        int n = 1 + random.nextInt(250);
        List<Keyed> out = new ArrayList<>();
        List<Keyed> sent = new ArrayList<>();
        long span = 4 * 60 * S;
        for (int i = 0; i < n; i++) {
            if (!sent.isEmpty() && random.nextInt(10) == 0) {
                out.add(sent.get(random.nextInt(sent.size()))); // a re-sent duplicate
                continue;
            }
            long ts;
            if (!sent.isEmpty() && random.nextInt(8) == 0) {
                ts = sent.get(random.nextInt(sent.size())).event().ts(); // a tie in time
            } else if (random.nextInt(6) == 0) {
                ts = T0 + random.nextLong(span / S) * S; // on a tile edge
            } else {
                ts = T0 + random.nextLong(span); // anywhere, in any order
            }
            String key = List.of("a", "a", "a", "b", "b", "c").get(random.nextInt(6));
            Object qty = random.nextInt(5) == 0 ? null : (long) random.nextInt(-3, 20);
            Object price = random.nextDouble() * 100 - 5;
            Object category =
                    random.nextInt(4) == 0
                            ? null
                            : List.of("shoes", "toys", "books").get(random.nextInt(3));
            String id = "e" + random.nextInt(1_000_000) + "-" + i;
            Keyed k = new Keyed(key, new EventEntry(ts, id, new Object[] {qty, price, category}));
            out.add(k);
            sent.add(k);
        }
        return out;
    }

    private static List<Long> queryTimes(SplittableRandom random, List<Keyed> accepted) {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            times.add(T0 - 10 * S + random.nextLong(5 * 60 * S)); // anywhere, incl. empty windows
        }
        for (int i = 0; i < 8 && !accepted.isEmpty(); i++) {
            long ts = accepted.get(random.nextInt(accepted.size())).event().ts();
            times.add(ts); // x.ts == t: excluded
            times.add(ts + 1);
            FeatureDef f = FEATURES.get(random.nextInt(FEATURES.size()));
            // t such that floor_s(t) − W == x.ts for a tile-aligned x.ts: included at the tail.
            long aligned = ts - Math.floorMod(ts, S);
            times.add(aligned + f.windowMillis() + random.nextLong(S));
        }
        return times;
    }

    private static FeatureValue bruteForce(FeatureDef f, String key, long t, List<Keyed> events) {
        List<EventEntry> entity = new ArrayList<>();
        for (Keyed k : events) {
            if (k.key().equals(key)) {
                entity.add(k.event());
            }
        }
        return Definition.value(f, S, t, entity);
    }
}
