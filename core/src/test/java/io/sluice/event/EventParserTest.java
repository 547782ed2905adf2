package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.schemas.Purchase;
import io.sluice.schemas.Schemas;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

class EventParserTest {

    static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    static final Schema PURCHASE = Purchase.getClassSchema();

    static ParseSpec spec(boolean avro, boolean strict) {
        return spec(
                PURCHASE,
                Schemas.writerSchemas("Purchase"),
                avro,
                strict,
                Duration.ofDays(30),
                Duration.ofHours(1));
    }

    /** A table of {@code schema} keyed by user_id, its ids event_id, its time event_time. */
    static ParseSpec spec(
            Schema schema,
            java.util.List<Schema> writers,
            boolean avro,
            boolean strict,
            Duration maxPast,
            Duration maxFuture) {
        return new ParseSpec(
                "purchases",
                schema,
                writers,
                avro,
                strict,
                "event_id",
                "user_id",
                "event_time",
                4096,
                maxPast.toMillis(),
                maxFuture.toMillis());
    }

    static String json(String eventTime) {
        return "{\"event_id\":\"e-1\",\"event_time\":"
                + eventTime
                + ",\"user_id\":\"u-1\","
                + "\"session_id\":\"s-1\",\"order_id\":\"o-1\",\"item_id\":\"i-1\","
                + "\"category\":\"books\",\"price\":12.5,\"quantity\":2,"
                + "\"payment_method\":\"card\",\"device\":\"IOS\",\"country\":\"DE\"}";
    }

    private final EventParser json = new EventParser(spec(false, true), NOW::toEpochMilli);

    private Parsed parse(EventParser parser, byte[] value) {
        return parser.parse("shop.purchases", 3, 42L, 7L, "u-1".getBytes(), value);
    }

    @Test
    void shouldAcceptValidJsonAndKeepTheRecordAsAvro() throws Exception {
        Parsed parsed = parse(json, json("\"2026-11-21T10:15:00.250Z\"").getBytes());

        assertThat(parsed.isValid()).isTrue();
        Event event = parsed.event;
        assertThat(event.id).isEqualTo("e-1");
        assertThat(event.key).isEqualTo("u-1");
        assertThat(event.eventTime)
                .isEqualTo(Instant.parse("2026-11-21T10:15:00.250Z").toEpochMilli());
        GenericRecord back =
                new GenericDatumReader<GenericRecord>(PURCHASE)
                        .read(null, DecoderFactory.get().binaryDecoder(event.payload, null));
        assertThat(back.get("price")).isEqualTo(12.5f);
        assertThat(back.get("coupon")).isNull();
        assertThat(back.get("device").toString()).isEqualTo("IOS");
    }

    @Test
    void shouldTakeAnEventTimeInMicrosecondsAsItsMillisecond() throws Exception {
        Schema schema =
                org.apache.avro.SchemaBuilder.record("Click")
                        .namespace("io.sluice.test")
                        .fields()
                        .requiredString("event_id")
                        .requiredString("user_id")
                        .name("event_time")
                        .type(
                                org.apache.avro.LogicalTypes.timestampMicros()
                                        .addToSchema(Schema.create(Schema.Type.LONG)))
                        .noDefault()
                        .endRecord();
        EventParser parser =
                new EventParser(
                        spec(
                                schema,
                                java.util.List.of(schema),
                                false,
                                true,
                                Duration.ofDays(30),
                                Duration.ofHours(1)),
                        NOW::toEpochMilli);
        Instant at = Instant.parse("2026-11-21T10:15:00.250999Z");
        for (String time : new String[] {"\"" + at + "\"", Long.toString(1_795_256_100_250_999L)}) {
            Parsed parsed =
                    parse(
                            parser,
                            ("{\"event_id\":\"e-1\",\"user_id\":\"u-1\",\"event_time\":"
                                            + time
                                            + "}")
                                    .getBytes(StandardCharsets.UTF_8));
            assertThat(parsed.isValid()).as(time).isTrue();
            // The event's hour and tiles go by milliseconds; the record keeps the microseconds.
            assertThat(parsed.event.eventTime).as(time).isEqualTo(at.toEpochMilli());
            GenericRecord back =
                    new GenericDatumReader<GenericRecord>(schema)
                            .read(
                                    null,
                                    DecoderFactory.get().binaryDecoder(parsed.event.payload, null));
            assertThat(back.get("event_time")).as(time).isEqualTo(1_795_256_100_250_999L);
        }
    }

    @Test
    void shouldRefuseATimeWhoseHourNoPartitionCanName() {
        // max_past and max_future as wide as the config allows.
        ParseSpec wide =
                spec(
                        PURCHASE,
                        Schemas.writerSchemas("Purchase"),
                        false,
                        true,
                        Duration.ofDays(999_999_999),
                        Duration.ofDays(999_999_999));
        EventParser parser = new EventParser(wide, NOW::toEpochMilli);
        long year10000 = Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli();
        for (long time :
                new long[] {year10000, Instant.parse("0000-12-31T23:00:00Z").toEpochMilli()}) {
            Parsed parsed = parse(parser, json(Long.toString(time)).getBytes());
            assertThat(parsed.isValid()).as(Long.toString(time)).isFalse();
            assertThat(parsed.deadLetter.reason).isEqualTo(Reason.TIMESTAMP_OUT_OF_RANGE.name());
            assertThat(parsed.deadLetter.message).contains("outside the years 1 to 9999");
        }
        assertThat(parse(parser, json(Long.toString(year10000 - 1)).getBytes()).isValid()).isTrue();
    }

    @Test
    void shouldAcceptEpochMillisForTimestamps() {
        long millis = NOW.minusSeconds(60).toEpochMilli();
        assertThat(parse(json, json(Long.toString(millis)).getBytes()).event.eventTime)
                .isEqualTo(millis);
    }

    @Test
    void shouldRouteMalformedJsonToDeadLettersWithCoordinates() {
        byte[] bytes = "{\"event_id\": \"e-1\",".getBytes();
        DeadLetter dead = parse(json, bytes).deadLetter;

        assertThat(dead.reason).isEqualTo("MALFORMED");
        assertThat(dead.value).isEqualTo(bytes);
        assertThat(dead.key).isEqualTo("u-1".getBytes());
        assertThat(dead.topic).isEqualTo("shop.purchases");
        assertThat(dead.partition).isEqualTo(3);
        assertThat(dead.offset).isEqualTo(42L);
    }

    @Test
    void shouldRejectWrongTypesNamingTheField() {
        String bad =
                json("\"2026-11-21T10:00:00Z\"").replace("\"quantity\":2", "\"quantity\":\"two\"");
        DeadLetter dead = parse(json, bad.getBytes()).deadLetter;

        assertThat(dead.reason).isEqualTo("WRONG_TYPE");
        assertThat(dead.message).contains("'quantity'", "int");
    }

    @Test
    void shouldRejectUnknownEnumSymbols() {
        String bad = json("\"2026-11-21T10:00:00Z\"").replace("IOS", "FRIDGE");
        assertThat(parse(json, bad.getBytes()).deadLetter.message).contains("'device'", "WEB");
    }

    @Test
    void shouldRejectMissingRequiredFields() {
        String bad = json("\"2026-11-21T10:00:00Z\"").replace("\"user_id\":\"u-1\",", "");
        DeadLetter dead = parse(json, bad.getBytes()).deadLetter;

        assertThat(dead.reason).isEqualTo("MISSING_FIELD");
        assertThat(dead.message).contains("user_id");
    }

    @Test
    void shouldRejectEmptyIdsAndKeys() {
        String bad = json("\"2026-11-21T10:00:00Z\"").replace("\"e-1\"", "\"\"");
        assertThat(parse(json, bad.getBytes()).deadLetter.reason).isEqualTo("MISSING_FIELD");
    }

    @Test
    void shouldRejectUnknownFieldsOnlyUnderStrictSchema() {
        byte[] extra =
                json("\"2026-11-21T10:00:00Z\"").replace("{", "{\"loyalty\":\"gold\",").getBytes();
        EventParser lenient = new EventParser(spec(false, false), NOW::toEpochMilli);

        assertThat(parse(json, extra).deadLetter.reason).isEqualTo("UNKNOWN_FIELD");
        assertThat(parse(lenient, extra).isValid()).isTrue();
    }

    @Test
    void shouldRejectOversizeRecordsBeforeParsing() {
        byte[] big = new byte[4097];
        DeadLetter dead = parse(json, big).deadLetter;

        assertThat(dead.reason).isEqualTo("OVERSIZE");
        assertThat(dead.message).contains("4097", "max_record_bytes");
    }

    @Test
    void shouldRejectTimestampsFarInTheFutureOrPast() {
        assertThat(parse(json, json("\"2036-01-01T00:00:00Z\"").getBytes()).deadLetter.reason)
                .isEqualTo("TIMESTAMP_OUT_OF_RANGE");
        assertThat(parse(json, json("\"1971-01-01T00:00:00Z\"").getBytes()).deadLetter.reason)
                .isEqualTo("TIMESTAMP_OUT_OF_RANGE");
        assertThat(parse(json, json("\"2026-11-21T12:59:59Z\"").getBytes()).isValid()).isTrue();
    }

    @Test
    void shouldRejectDuplicateJsonKeysAndTrailingGarbage() {
        String twice = json("\"2026-11-21T10:00:00Z\"").replace("{", "{\"user_id\":\"u-2\",");
        assertThat(parse(json, twice.getBytes()).deadLetter.reason).isEqualTo("MALFORMED");
        assertThat(parse(json, (json("1") + "{}").getBytes()).deadLetter.reason)
                .isEqualTo("MALFORMED");
        assertThat(parse(json, "[1,2]".getBytes()).deadLetter.reason).isEqualTo("MALFORMED");
        assertThat(parse(json, new byte[0]).deadLetter.reason).isEqualTo("MALFORMED");
    }

    @Test
    void shouldDecodeSingleObjectEncodingFromEveryReleasedWriter() throws Exception {
        EventParser avro = new EventParser(spec(true, false), NOW::toEpochMilli);
        Schema v1 = Schemas.released("v1", "Purchase").orElseThrow();
        GenericRecord old = new GenericData.Record(v1);
        for (Schema.Field f : v1.getFields()) {
            old.put(f.name(), sample(f));
        }
        byte[] bytes =
                new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old).array();

        Parsed parsed = parse(avro, bytes);

        assertThat(parsed.isValid()).isTrue();
        assertThat(parsed.event.key).isEqualTo("u-1");
    }

    @Test
    void shouldRejectUnknownFingerprintsAndCorruptBodies() throws Exception {
        EventParser avro = new EventParser(spec(true, false), NOW::toEpochMilli);
        GenericRecord record = new GenericData.Record(PURCHASE);
        for (Schema.Field f : PURCHASE.getFields()) {
            record.put(f.name(), sample(f));
        }
        byte[] good =
                new BinaryMessageEncoder<GenericRecord>(GenericData.get(), PURCHASE)
                        .encode(record)
                        .array();
        byte[] unknown = good.clone();
        unknown[5] ^= 0x5a;

        assertThat(parse(avro, good).isValid()).isTrue();
        assertThat(parse(avro, unknown).deadLetter.reason).isEqualTo("UNKNOWN_SCHEMA");
        assertThat(parse(avro, java.util.Arrays.copyOf(good, 14)).deadLetter.reason)
                .isEqualTo("MALFORMED");
        assertThat(parse(avro, "{\"json\":1}".getBytes(StandardCharsets.UTF_8)).deadLetter.reason)
                .isEqualTo("MALFORMED");
    }

    @Test
    void shouldPassHostileKeysThroughAsData() {
        String hostile = "../../etc/\u0000/" + "x".repeat(2000);
        String body =
                json("\"2026-11-21T10:00:00Z\"")
                        .replace("\"u-1\"", "\"" + hostile.replace("\u0000", "\\u0000") + "\"");
        Parsed parsed = parse(json, body.getBytes(StandardCharsets.UTF_8));

        assertThat(parsed.isValid()).isTrue();
        assertThat(parsed.event.key).isEqualTo(hostile);
    }

    private static Object sample(Schema.Field f) {
        return switch (f.name()) {
            case "event_time" -> NOW.minusSeconds(600).toEpochMilli();
            case "price" -> 3.25f;
            case "quantity" -> 1;
            case "coupon" -> null;
            case "user_id" -> "u-1";
            case "device" -> new GenericData.EnumSymbol(f.schema(), "WEB");
            default -> f.name() + "-1";
        };
    }
}
