package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of the parse path: random byte strings and mutations of valid JSON and Avro
 * records. The decoders must answer every input with an event or a dead letter with a reason, from
 * their own checks: the parser's last-resort catch must never be what saves a record.
 *
 * <p>A failure prints its seed; {@code -Dsluice.seed=N} replays it.
 */
class ParserFuzzTest {

    static final int INPUTS_PER_KIND = 3_000;

    static final String JSON_CHARS = "{}[]\",:\\u0123456789eE-+.ntf";

    private final long seed =
            Long.getLong("sluice.seed", System.nanoTime() ^ Runtime.getRuntime().freeMemory());

    @Test
    void shouldAnswerEveryJsonInputWithAnEventOrAReason() {
        List<byte[]> seeds =
                List.of(
                        EventParserTest.json("\"2026-11-21T10:15:00.250Z\"")
                                .getBytes(StandardCharsets.UTF_8),
                        EventParserTest.json("1795262400000")
                                .replace("\"o-1\"", "\"\\u00e9\\ud83d\\ude00\"")
                                .getBytes(StandardCharsets.UTF_8),
                        "{\"extra\":[1,{\"a\":[true,null,\"x\"]}],\"event_id\":\"e\"}"
                                .getBytes(StandardCharsets.UTF_8));
        for (boolean strict : new boolean[] {true, false}) {
            run(HostileInputTest.purchasesJson(strict, 4096), seeds, "JSON strict=" + strict);
        }
    }

    @Test
    void shouldAnswerEveryAvroInputWithAnEventOrAReason() throws Exception {
        List<byte[]> seeds =
                List.of(
                        HostileInputTest.singleObject(HostileInputTest.addToCartRecord("e-1")),
                        HostileInputTest.singleObject(
                                HostileInputTest.addToCartRecord("\u00e9\ud83d\ude00".repeat(20))),
                        HostileInputTest.TWO_GIB_STRING);
        run(HostileInputTest.addToCart(4096), seeds, "Avro");
    }

    private void run(ParseSpec spec, List<byte[]> seeds, String what) {
        SplittableRandom random = new SplittableRandom(seed);
        EventParser parser = new EventParser(spec, HostileInputTest.NOW::toEpochMilli);
        RecordDecoder decoder = spec.decoder();
        int valid = 0;
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < INPUTS_PER_KIND; i++) {
            byte[] input =
                    i % 3 == 0
                            ? randomBytes(random, seeds)
                            : mutate(random, seeds.get(random.nextInt(seeds.size())));
            String replay = what + " input " + i + " (replay with -Dsluice.seed=" + seed + ")";
            try {
                decoder.decode(input);
            } catch (InvalidEventException e) {
                assertThat(e.reason()).as(replay).isNotNull();
            } catch (Throwable t) {
                throw new AssertionError("decoder threw " + t + " on " + replay, t);
            }
            Parsed parsed = parser.parse("t", 0, i, 0L, null, input);
            if (parsed.isValid()) {
                valid++;
                assertThat(parsed.event.id).as(replay).isNotEmpty();
                assertThat(roundTrips(spec, parsed.event.payload)).as(replay).isTrue();
            } else {
                assertThat(parsed.deadLetter.value).as(replay).isSameAs(input);
                assertThat(Reason.valueOf(parsed.deadLetter.reason)).as(replay).isNotNull();
                assertThat(parsed.deadLetter.message).as(replay).isNotBlank();
                assertThat(parsed.deadLetter.message)
                        .as(replay)
                        .doesNotContain("unexpected parse failure");
                reasons.add(parsed.deadLetter.reason);
            }
        }
        assertThat(reasons).as("%s: bad inputs were produced (seed %d)", what, seed).isNotEmpty();
        assertThat(valid)
                .as("%s: mutations keep some records valid (seed %d)", what, seed)
                .isGreaterThan(0);
    }

    private static boolean roundTrips(ParseSpec spec, byte[] payload) {
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(payload, null);
            GenericRecord back =
                    new GenericDatumReader<GenericRecord>(spec.schema()).read(null, in);
            return in.isEnd() && back.get(spec.idField()) != null;
        } catch (Exception e) {
            return false;
        }
    }

    private static byte[] randomBytes(SplittableRandom random, List<byte[]> seeds) {
        byte[] bytes = new byte[random.nextInt(1, 300)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        if (random.nextBoolean()) {
            // Keep a valid prefix (the Avro header, or '{'), so the body is what gets tested.
            byte[] seed = seeds.get(random.nextInt(seeds.size()));
            System.arraycopy(seed, 0, bytes, 0, Math.min(bytes.length, Math.min(10, seed.length)));
        }
        return bytes;
    }

    private static byte[] mutate(SplittableRandom random, byte[] seed) {
        byte[] bytes = seed.clone();
        int edits = random.nextInt(1, 4);
        for (int e = 0; e < edits && bytes.length > 0; e++) {
            int at = random.nextInt(bytes.length);
            switch (random.nextInt(6)) {
                case 0 -> bytes[at] = (byte) random.nextInt(256);
                case 1 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
                case 2 -> bytes = java.util.Arrays.copyOf(bytes, at); // truncate
                case 3 -> { // insert a random byte
                    byte[] longer = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, longer, 0, at);
                    longer[at] = (byte) random.nextInt(256);
                    System.arraycopy(bytes, at, longer, at + 1, bytes.length - at);
                    bytes = longer;
                }
                case 4 -> { // a varint claiming a huge length or count
                    byte[] huge = {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};
                    System.arraycopy(huge, 0, bytes, at, Math.min(huge.length, bytes.length - at));
                }
                default ->
                        bytes[at] = (byte) JSON_CHARS.charAt(random.nextInt(JSON_CHARS.length()));
            }
        }
        return bytes;
    }
}
