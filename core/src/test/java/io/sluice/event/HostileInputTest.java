package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.schemas.AddToCart;
import io.sluice.schemas.Schemas;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

/** Records built to hurt the decoders: each ends as a dead letter with a reason, nothing throws. */
class HostileInputTest {

    static final Instant NOW = EventParserTest.NOW;

    /** The tracker's record: an AddToCart header, then a string claiming ~2 GiB. */
    static final byte[] TWO_GIB_STRING =
            HexFormat.of().parseHex("c30186fcae8592bee764ecffffff0f616263");

    static ParseSpec addToCart(int maxRecordBytes) {
        return new ParseSpec(
                "add_to_cart",
                AddToCart.getClassSchema(),
                Schemas.writerSchemas("AddToCart"),
                true,
                false,
                "event_id",
                "user_id",
                "event_time",
                maxRecordBytes,
                Duration.ofDays(30).toMillis(),
                Duration.ofHours(1).toMillis());
    }

    static ParseSpec purchasesJson(boolean strict, int maxRecordBytes) {
        ParseSpec s = EventParserTest.spec(false, strict);
        return new ParseSpec(
                s.table(),
                s.schema(),
                s.writerSchemas(),
                false,
                strict,
                s.idField(),
                s.keyField(),
                s.eventTimeField(),
                maxRecordBytes,
                s.maxPastMillis(),
                s.maxFutureMillis());
    }

    static GenericRecord addToCartRecord(String id) {
        GenericRecord r = new GenericData.Record(AddToCart.getClassSchema());
        r.put("event_id", id);
        r.put("event_time", NOW.minusSeconds(60).toEpochMilli());
        r.put("user_id", "u-1");
        r.put("session_id", "s-1");
        r.put("item_id", "i-1");
        r.put("category", "books");
        r.put("price", 1.5f);
        r.put("quantity", 2);
        r.put(
                "device",
                new GenericData.EnumSymbol(
                        AddToCart.getClassSchema().getField("device").schema(), "WEB"));
        r.put("country", "DE");
        return r;
    }

    static byte[] singleObject(GenericRecord record) throws Exception {
        return new BinaryMessageEncoder<GenericRecord>(GenericData.get(), record.getSchema())
                .encode(record)
                .array();
    }

    private static DeadLetter rejected(ParseSpec spec, byte[] value) {
        Parsed parsed = new EventParser(spec, NOW::toEpochMilli).parse("t", 0, 1L, 2L, null, value);
        assertThat(parsed.isValid()).as("rejected").isFalse();
        assertThat(parsed.deadLetter.value).isSameAs(value);
        return parsed.deadLetter;
    }

    private static Parsed parse(ParseSpec spec, String json) {
        return new EventParser(spec, NOW::toEpochMilli)
                .parse("t", 0, 1L, 2L, null, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRejectAnAvroStringLengthBeyondTheRecordWithoutAllocatingIt() {
        DeadLetter dead = rejected(addToCart(65536), TWO_GIB_STRING);

        assertThat(dead.reason).isEqualTo("MALFORMED");
        assertThat(dead.message).contains("string length", "exceeds the 3 bytes left");
    }

    @Test
    void shouldRejectTrailingBytesAfterAnAvroRecord() throws Exception {
        byte[] good = singleObject(addToCartRecord("e-1"));
        byte[] trailing = Arrays.copyOf(good, good.length + 1);

        assertThat(
                        new EventParser(addToCart(65536), NOW::toEpochMilli)
                                .parse("t", 0, 1L, 2L, null, good)
                                .isValid())
                .isTrue();
        DeadLetter dead = rejected(addToCart(65536), trailing);
        assertThat(dead.reason).isEqualTo("MALFORMED");
        assertThat(dead.message).contains("1 trailing bytes");
    }

    @Test
    void shouldRejectAvroStringsThatAreNotWellFormedUtf8() throws Exception {
        byte[] good = singleObject(addToCartRecord("e-\u00e9"));
        int at = indexOf(good, "e-\u00e9".getBytes(StandardCharsets.UTF_8));
        for (byte[] bad :
                List.of(
                        new byte[] {(byte) 0xed, (byte) 0xa0}, // half of an encoded surrogate
                        new byte[] {(byte) 0xc0, (byte) 0x80}, // overlong NUL
                        new byte[] {(byte) 0xff, (byte) 0x80})) {
            byte[] value = good.clone();
            value[at + 2] = bad[0];
            value[at + 3] = bad[1];
            DeadLetter dead = rejected(addToCart(65536), value);
            assertThat(dead.reason).isEqualTo("MALFORMED");
            assertThat(dead.message).contains("UTF-8");
        }
    }

    @Test
    void shouldBoundArrayAndMapCountsByTheRecordsBytes() throws Exception {
        Schema schema =
                SchemaBuilder.record("R")
                        .fields()
                        .name("a")
                        .type()
                        .array()
                        .items()
                        .stringType()
                        .noDefault()
                        .name("m")
                        .type()
                        .map()
                        .values()
                        .longType()
                        .noDefault()
                        .endRecord();
        for (long count : List.of(1L << 31, 1L << 40, 20L, -(1L << 31))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().directBinaryEncoder(out, null);
            enc.writeLong(count);
            if (count < 0) {
                enc.writeLong(4); // a block's byte size
            }
            enc.writeFixed(new byte[] {0, 0, 0, 0});
            enc.flush();
            byte[] bytes = out.toByteArray();
            BoundedBinaryDecoder in = new BoundedBinaryDecoder().reset(bytes, 0);

            assertThat(
                            org.assertj.core.api.Assertions.catchThrowable(
                                    () ->
                                            new GenericDatumReader<GenericRecord>(schema)
                                                    .read(null, in)))
                    .as("count %d", count)
                    .isInstanceOf(BoundedBinaryDecoder.Malformed.class)
                    .hasMessageContaining("array of");
        }
    }

    @Test
    void shouldRejectAOneMebibyteJsonRecordAsOversize() {
        String big =
                EventParserTest.json("\"2026-11-21T11:00:00Z\"")
                        .replace("\"s-1\"", "\"" + "x".repeat(1 << 20) + "\"");
        DeadLetter dead = rejected(purchasesJson(true, 65536), big.getBytes());

        assertThat(dead.reason).isEqualTo("OVERSIZE");
        assertThat(dead.message).contains(Integer.toString(big.length()), "65536");
    }

    @Test
    void shouldRejectDeepNestingWithoutOverflowingTheStack() {
        String deep = "[".repeat(100_000);
        String inField = "{\"extra\":" + deep + "}";
        String inKnownField =
                EventParserTest.json("1").replace("\"books\"", deep + "]".repeat(100_000));

        for (String json : List.of(deep, inField, inKnownField)) {
            DeadLetter dead = rejected(purchasesJson(false, 1 << 20), json.getBytes());
            assertThat(dead.reason).isIn("MALFORMED", "WRONG_TYPE");
        }
        assertThat(rejected(purchasesJson(false, 1 << 20), inField.getBytes()).message)
                .contains("nesting depth");
    }

    @Test
    void shouldRejectHugeNumbers() {
        String digits = "9".repeat(100_000);
        for (String json :
                List.of(
                        EventParserTest.json(digits),
                        EventParserTest.json("1")
                                .replace("\"quantity\":2", "\"quantity\":" + digits),
                        EventParserTest.json("1").replace("12.5", "1." + digits),
                        EventParserTest.json("1").replace("12.5", "1e" + digits),
                        "{\"extra\":" + digits + "}")) {
            DeadLetter dead = rejected(purchasesJson(false, 1 << 20), json.getBytes());
            assertThat(dead.reason).isEqualTo("MALFORMED");
            assertThat(dead.message).contains("Number value length");
        }
        // A modest one still decodes: 1e400 is not a finite double.
        assertThat(
                        parse(
                                        purchasesJson(false, 4096),
                                        EventParserTest.json("1").replace("12.5", "1e400"))
                                .deadLetter
                                .reason)
                .isEqualTo("WRONG_TYPE");
    }

    @Test
    void shouldRejectLoneSurrogatesNamingTheField() {
        String valid = EventParserTest.json("\"2026-11-21T11:00:00Z\"");
        for (String id : List.of("\\ud800", "e-\\udc00", "\\ud800\\ud800", "x\\ude00\\ud83d")) {
            Parsed parsed =
                    parse(purchasesJson(true, 4096), valid.replace("\"e-1\"", "\"" + id + "\""));
            assertThat(parsed.isValid()).as(id).isFalse();
            assertThat(parsed.deadLetter.reason).isEqualTo("MALFORMED");
            assertThat(parsed.deadLetter.message).contains("'event_id'", "surrogate");
        }
        Parsed pair =
                parse(purchasesJson(true, 4096), valid.replace("\"e-1\"", "\"\\ud83d\\ude00\""));
        assertThat(pair.event.id).isEqualTo("\ud83d\ude00");
    }

    @Test
    void shouldRejectJsonBytesThatAreNotWellFormedUtf8() {
        byte[] good =
                EventParserTest.json("\"2026-11-21T11:00:00Z\"").getBytes(StandardCharsets.UTF_8);
        int at = indexOf(good, "e-1".getBytes());
        for (byte[] bad :
                List.of(
                        new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // encoded surrogate
                        new byte[] {(byte) 0xe0, (byte) 0x80, (byte) 0xaf}, // overlong '/'
                        new byte[] {(byte) 0xf4, (byte) 0x90, (byte) 0x80})) { // > U+10FFFF
            byte[] value = good.clone();
            System.arraycopy(bad, 0, value, at, 3);
            DeadLetter dead = rejected(purchasesJson(true, 4096), value);
            assertThat(dead.reason).isEqualTo("MALFORMED");
            assertThat(dead.message).contains("invalid UTF-8 at byte " + at);
        }
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
