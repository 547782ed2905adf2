package io.sluice.features.agg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TileCodecTest {

    /** Characters of every width modified UTF-8 has, NUL (two bytes) and a surrogate pair. */
    private static final String ALPHABET = "az09-_\u0000\u00e9\u07ff\u0800\u20ac\uffff\ud83d\ude00";

    @Test
    void writesWhatDataOutputStreamWritesByteForByte() throws IOException {
        SplittableRandom random = new SplittableRandom(5);
        for (int round = 0; round < 500; round++) {
            TileOut out = new TileOut(1);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream expected = new DataOutputStream(bytes);
            for (int field = 0; field < 20; field++) {
                switch (random.nextInt(7)) {
                    case 0 -> {
                        int v = random.nextInt();
                        out.writeByte(v);
                        expected.writeByte(v);
                    }
                    case 1 -> {
                        int v = random.nextInt();
                        out.writeShort(v);
                        expected.writeShort(v);
                    }
                    case 2 -> {
                        int v = random.nextInt();
                        out.writeInt(v);
                        expected.writeInt(v);
                    }
                    case 3 -> {
                        long v = random.nextLong();
                        out.writeLong(v);
                        expected.writeLong(v);
                    }
                    case 4 -> {
                        double v =
                                random.nextBoolean()
                                        ? Double.NaN
                                        : Double.longBitsToDouble(random.nextLong());
                        out.writeDouble(v);
                        expected.writeDouble(v);
                    }
                    case 5 -> {
                        boolean v = random.nextBoolean();
                        out.writeBoolean(v);
                        expected.writeBoolean(v);
                    }
                    default -> {
                        StringBuilder text = new StringBuilder();
                        int length = random.nextInt(40);
                        for (int i = 0; i < length; i++) {
                            text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                        }
                        out.writeUTF(text.toString());
                        expected.writeUTF(text.toString());
                    }
                }
            }
            assertThat(out.toByteArray()).isEqualTo(bytes.toByteArray());
        }
    }

    @Test
    void refusesAStringTooLongForItsLengthField() {
        assertThatThrownBy(() -> new TileOut(1).writeUTF("\u20ac".repeat(21_846)))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("65538 encoded bytes is too long");
    }

    @Test
    void aTileIsEncodedAgainOnlyAfterItChanged() {
        Tile tile = new Tile(0);
        tile.add(new EventEntry(5, "b", new Object[] {1L, "x\u00e9"}));
        byte[] first = TileCodec.encodeFine(tile);
        assertThat(TileCodec.encodeFine(tile)).isSameAs(first);
        assertThat(TileCodec.encodeFine(tile.copy())).isSameAs(first);

        Tile copy = tile.copy();
        copy.add(new EventEntry(1, "a", new Object[] {2.5, null}));
        assertThat(TileCodec.decodeFine(0, TileCodec.encodeFine(copy)).events())
                .extracting(EventEntry::id)
                .containsExactly("a", "b");
        assertThat(TileCodec.decodeFine(0, TileCodec.encodeFine(tile)).events())
                .extracting(EventEntry::id)
                .containsExactly("b");

        assertThat(tile.add(new EventEntry(5, "b", new Object[] {1L, "x"}))).isFalse();
        assertThat(TileCodec.encodeFine(tile)).isSameAs(first);
        tile.add(new EventEntry(9, "c", new Object[] {3L, "y"}));
        assertThat(TileCodec.decodeFine(0, TileCodec.encodeFine(tile)).events())
                .extracting(EventEntry::id)
                .containsExactly("b", "c");
        tile.remove("b");
        assertThat(TileCodec.decodeFine(0, TileCodec.encodeFine(tile)).events())
                .extracting(EventEntry::id)
                .containsExactly("c");
        assertThat(List.of(TileCodec.decodeFine(0, first).events().get(0).values()))
                .containsExactly(1L, "x\u00e9");
    }

    @Test
    void aTileGrownAtItsEndEncodesAsIfEncodedAnewByteForByte() {
        SplittableRandom random = new SplittableRandom(11);
        int appended = 0;
        for (int round = 0; round < 200; round++) {
            Tile tile = new Tile(0);
            long ts = 0;
            for (int change = 0; change < 40; change++) {
                int kind = random.nextInt(10);
                if (kind < 7) {
                    ts += random.nextInt(3); // at the end, sometimes at the same time
                    appended++;
                    tile.add(entry(random, ts, "e" + change));
                } else if (kind < 9) {
                    tile.add(entry(random, random.nextLong(ts + 1), "m" + change)); // anywhere
                } else if (tile.size() > 0) {
                    tile.remove(tile.events().get(random.nextInt(tile.size())).id());
                }
                if (random.nextInt(3) == 0) {
                    byte[] kept = TileCodec.encodeFine(tile);
                    byte[] fresh = TileCodec.encodeFine(new Tile(0, tile.events()));
                    assertThat(kept).isEqualTo(fresh);
                    assertThat(TileCodec.decodeFine(0, kept).events())
                            .extracting(TileCodecTest::text)
                            .containsExactlyElementsOf(
                                    tile.events().stream().map(TileCodecTest::text).toList());
                }
            }
        }
        assertThat(appended).isGreaterThan(4_000);
    }

    @Test
    void anEventAddedAtTheEndKeepsTheEncodingAsThePrefixItExtends() {
        Tile tile = new Tile(0);
        tile.add(new EventEntry(5, "b", new Object[] {1L}));
        byte[] first = TileCodec.encodeFine(tile);
        tile.add(new EventEntry(7, "c", new Object[] {2L}));
        byte[] second = TileCodec.encodeFine(tile);
        assertThat(second).startsWith(first[0]).hasSizeGreaterThan(first.length);
        assertThat(TileCodec.encodedCount(second)).isEqualTo(2);
        assertThat(Arrays.copyOfRange(second, 5, first.length))
                .isEqualTo(Arrays.copyOfRange(first, 5, first.length));
        // The bytes handed out before stay as they were: they may be in flight to a store.
        assertThat(TileCodec.encodedCount(first)).isEqualTo(1);
        assertThat(TileCodec.decodeFine(0, first).events())
                .extracting(EventEntry::id)
                .containsExactly("b");
    }

    private static EventEntry entry(SplittableRandom random, long ts, String id) {
        Object value =
                switch (random.nextInt(4)) {
                    case 0 -> null;
                    case 1 -> random.nextLong();
                    case 2 -> random.nextDouble();
                    default -> randomText(random);
                };
        return new EventEntry(ts, id, new Object[] {value, (long) random.nextInt(5)});
    }

    private static String text(EventEntry e) {
        return e.ts() + "|" + e.id() + "|" + java.util.Arrays.asList(e.values());
    }

    private static String randomText(SplittableRandom random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(6); i > 0; i--) {
            text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return text.toString();
    }

    @Test
    void refusesEveryTruncatedTileAsTruncated() {
        Tile tile = new Tile(0);
        tile.add(new EventEntry(5, "b", new Object[] {1L, "x", 2.5, null}));
        tile.add(new EventEntry(9, "c", new Object[] {3L, "yz", -1.0, null}));
        byte[] whole = TileCodec.encodeFine(tile);
        assertThat(TileCodec.decodeFine(0, whole).size()).isEqualTo(2);
        for (int length = 0; length < whole.length; length++) {
            byte[] cut = Arrays.copyOf(whole, length);
            assertThatThrownBy(() -> TileCodec.decodeFine(0, cut))
                    .as("the first %d of %d bytes", length, whole.length)
                    .isInstanceOf(UncheckedIOException.class)
                    .hasRootCauseMessage("the tile ends before its last field");
        }
    }
}
