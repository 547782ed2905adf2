package io.sluice.features.agg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Aggregation;
import io.sluice.config.FeatureType;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A coarse tile keeps one partial per partial key, and every feature reads its value from it. */
class CoarsePartialsTest {

    private static final long MINUTE = 60_000;

    @Test
    void keepsOnePartialPerKeyAndEveryFeatureReadsItsOwnValue() {
        List<FeatureDef> features = new ArrayList<>();
        for (long w : new long[] {5 * MINUTE, 60 * MINUTE}) {
            features.add(
                    new FeatureDef("n" + w, Aggregation.COUNT, -1, w, FeatureType.LONG, false));
            features.add(new FeatureDef("s" + w, Aggregation.SUM, 0, w, FeatureType.DOUBLE, true));
            features.add(new FeatureDef("m" + w, Aggregation.MAX, 0, w, FeatureType.DOUBLE, true));
            features.add(
                    new FeatureDef("l" + w, Aggregation.LAST, 1, w, FeatureType.STRING, false));
        }
        ViewDef view =
                new ViewDef(
                        "v", MINUTE, 60 * MINUTE, 24 * 60 * MINUTE, List.of("a", "b"), features);
        Tile one = new Tile(0);
        one.add(new EventEntry(1, "x", new Object[] {2.5, "red"}));
        one.add(new EventEntry(2, "y", new Object[] {null, "blue"}));
        Tile two = new Tile(MINUTE);
        two.add(new EventEntry(MINUTE + 1, "z", new Object[] {7.0, null}));

        Map<String, Partial> coarse =
                TileCodec.decodeCoarse(
                        TileCodec.encodeCoarse(CoarsePartials.of(view, List.of(one, two))));

        assertThat(coarse).containsOnlyKeys(ViewDef.PRESENCE, "#0", "#1");
        for (FeatureDef f : view.features()) {
            assertThat(coarse.get(f.partialKey()).value(f))
                    .as(f.name())
                    .isEqualTo(CoarsePartials.of(f, List.of(one, two)).value(f));
        }
        assertThat(coarse.get(ViewDef.PRESENCE).value(view.presence()).value()).isEqualTo(3L);
    }

    @Test
    void refusesACoarseTileOfAnotherLayoutNamingTheRebuild() {
        for (byte format : new byte[] {1, 2}) { // by feature name; without mid tiles
            byte[] older = {format, 0, 0};
            assertThatThrownBy(() -> TileCodec.decodeCoarse(older))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("tile format " + format)
                    .hasMessageContaining("sluice features --rebuild");
        }
    }

    /** A store written before mid tiles existed has fine tiles of format 1: a read would miss. */
    @Test
    void refusesAFineTileOfAStoreWithoutMidTilesNamingTheRebuild() {
        byte[] older = {1, 0, 0, 0, 0};
        assertThatThrownBy(() -> TileCodec.decodeFine(0, older))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("tile format 1")
                .hasMessageContaining("sluice features --rebuild");
    }

    /** Tiles decode to what was encoded: ASCII, other text and NUL, numbers and nulls. */
    @Test
    void decodesWhatItEncodes() {
        Tile tile = new Tile(0);
        tile.add(new EventEntry(5, "a", new Object[] {1L, 2.5, "toys", null}));
        tile.add(new EventEntry(7, "ä\u0000日本", new Object[] {-3L, -0.0, "café\u0000", null}));
        List<EventEntry> read = TileCodec.decodeFine(0, TileCodec.encodeFine(tile)).events();
        assertThat(read).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertThat(read.get(i).ts()).isEqualTo(tile.events().get(i).ts());
            assertThat(read.get(i).id()).isEqualTo(tile.events().get(i).id());
            assertThat(read.get(i).values()).containsExactly(tile.events().get(i).values());
        }
        assertThatThrownBy(
                        () ->
                                TileCodec.decodeFine(
                                        0, Arrays.copyOf(TileCodec.encodeFine(tile), 30)))
                .isInstanceOf(UncheckedIOException.class);
        ViewDef view = new ViewDef("v", 1, 4, 100, List.of("x"), List.of());
        Map<String, Partial> partials = new java.util.LinkedHashMap<>();
        Partial p = new Partial();
        p.add(
                new FeatureDef("l", Aggregation.LAST, 0, 10, FeatureType.STRING, false),
                new EventEntry(3, "ïd", new Object[] {"välue"}));
        partials.put("#0", p);
        Map<String, Partial> decoded = TileCodec.decodeCoarse(TileCodec.encodeCoarse(partials));
        assertThat(decoded.keySet()).containsExactly("#0");
        assertThat(decoded.get("#0").lastId).isEqualTo("ïd");
        assertThat(decoded.get("#0").last).isEqualTo("välue");
        assertThat(decoded.get("#0").count).isEqualTo(1);
        assertThat(view.midMillis()).isEqualTo(2);
    }

    @Test
    void partialKeysDecodeToOneStringEachWhateverShares() {
        // More keys than the decoder keeps, so that some share a slot and replace each other.
        Map<String, Partial> partials = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 600; i++) {
            Partial p = new Partial();
            p.count = i;
            partials.put((i % 3 == 0 ? "#" : "sum_") + i, p);
        }
        partials.put("kéy", new Partial()); // not ASCII: decoded as modified UTF-8, never shared
        byte[] payload = TileCodec.encodeCoarse(partials);
        for (int round = 0; round < 2; round++) {
            Map<String, Partial> decoded = TileCodec.decodeCoarse(payload);
            assertThat(decoded.keySet()).containsExactlyElementsOf(partials.keySet());
            decoded.forEach(
                    (key, p) -> {
                        if (!key.equals("kéy")) {
                            assertThat(p.count)
                                    .as(key)
                                    .isEqualTo(Long.parseLong(key.replaceAll("\\D", "")));
                        }
                    });
        }
        Map<String, Partial> one = Map.of("avg_spend", new Partial());
        String first =
                TileCodec.decodeCoarse(TileCodec.encodeCoarse(one)).keySet().iterator().next();
        String again =
                TileCodec.decodeCoarse(TileCodec.encodeCoarse(one)).keySet().iterator().next();
        assertThat(again).as("the same key decoded twice is one string").isSameAs(first);
    }
}
