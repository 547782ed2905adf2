package io.sluice.generate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.TableConfig;
import io.sluice.config.TableFormat;
import io.sluice.event.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;

/**
 * A seeded, deterministic stream of shop events for the reference tables: Zipf-distributed users
 * and items, out-of-order and late event times, re-sent duplicates, and invalid records of every
 * kind the pipeline must dead-letter. The same options give the same records, byte for byte.
 *
 * <p>It knows the shop domain's records ({@code PageView}, {@code AddToCart}, {@code Purchase});
 * tables of other schemas are refused up front.
 */
public final class Generator {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] CATEGORIES = {
        "books",
        "electronics",
        "garden",
        "toys",
        "fashion",
        "grocery",
        "sports",
        "beauty",
        "home",
        "music",
        "games",
        "pets"
    };
    private static final String[] COUNTRIES = {"US", "DE", "GB", "FR", "IN", "BR", "JP", "NL"};
    private static final String[] DEVICES = {"WEB", "WEB", "IOS", "ANDROID"};
    private static final String[] PAYMENTS = {"card", "card", "paypal", "apple_pay", "gift_card"};
    private static final String[] REFERRERS = {"google", "newsletter", "instagram", "direct"};

    /** Weights of page views, cart adds and purchases in the stream. */
    private static final double[] MIX = {0.70, 0.20, 0.10};

    private static final Reason[] INVALID_CYCLE = {
        Reason.MALFORMED,
        Reason.WRONG_TYPE,
        Reason.MISSING_FIELD,
        Reason.UNKNOWN_FIELD,
        Reason.OVERSIZE,
        Reason.TIMESTAMP_OUT_OF_RANGE,
        Reason.UNKNOWN_SCHEMA
    };

    private final List<TableConfig> tables;
    private final GeneratorOptions options;
    private final SplittableRandom random;
    private final Zipf users;
    private final Zipf items;
    private final List<GeneratedRecord> recent = new ArrayList<>();
    private final GeneratorStats stats = new GeneratorStats();
    private long orders;
    private int invalidTurn;
    private boolean pastTurn;

    /**
     * @param tables the tables to generate for, by schema: one each of PageView, AddToCart and
     *     Purchase at most; a missing one is skipped
     */
    public Generator(List<TableConfig> tables, GeneratorOptions options) {
        for (TableConfig t : tables) {
            if (!List.of("PageView", "AddToCart", "Purchase").contains(t.schemaName())) {
                throw new IllegalArgumentException(
                        "The generator knows the shop schemas PageView, AddToCart and Purchase;"
                                + " table '"
                                + t.name()
                                + "' uses "
                                + t.schemaName());
            }
        }
        this.tables = List.copyOf(tables);
        this.options = options;
        this.random = new SplittableRandom(options.seed());
        this.users = new Zipf(options.users(), 1.1);
        this.items = new Zipf(options.items(), 1.05);
    }

    /** Emits every record, in order, to {@code sink}, and returns the counts. */
    public GeneratorStats run(Consumer<GeneratedRecord> sink) {
        if (tables.isEmpty()) {
            return stats;
        }
        for (long i = 0; i < options.events(); i++) {
            long nominal =
                    options.start().toEpochMilli()
                            + (long) ((double) options.span().toMillis() * i / options.events());
            double dice = random.nextDouble();
            GeneratedRecord record;
            boolean late = false;
            if (dice < options.invalidRate()) {
                record = invalid(nominal);
            } else if (dice < options.invalidRate() + options.duplicateRate()
                    && !recent.isEmpty()) {
                GeneratedRecord original = recent.get(random.nextInt(recent.size()));
                record =
                        new GeneratedRecord(
                                original.table(),
                                original.topic(),
                                original.key(),
                                original.value(),
                                GeneratedRecord.Kind.DUPLICATE,
                                null,
                                original.eventId(),
                                original.eventTime());
            } else {
                late = dice > 1 - options.lateRate();
                long time =
                        late
                                ? nominal - options.lateBy().toMillis()
                                : nominal
                                        - (long)
                                                (random.nextDouble()
                                                        * options.outOfOrderness().toMillis());
                record = valid(pickTable(), time);
                remember(record);
            }
            stats.record(record, late);
            sink.accept(record);
        }
        return stats;
    }

    private TableConfig pickTable() {
        double dice = random.nextDouble();
        double sum = 0;
        for (int i = 0; i < MIX.length; i++) {
            sum += MIX[i];
            TableConfig t = bySchema(i);
            if (dice < sum && t != null) {
                return t;
            }
        }
        return tables.get(random.nextInt(tables.size()));
    }

    private TableConfig bySchema(int index) {
        String name = List.of("PageView", "AddToCart", "Purchase").get(index);
        return tables.stream().filter(t -> t.schemaName().equals(name)).findFirst().orElse(null);
    }

    private void remember(GeneratedRecord record) {
        // A small ring of recent events: duplicates in practice are retries, close in time.
        if (recent.size() < 256) {
            recent.add(record);
        } else {
            recent.set(random.nextInt(recent.size()), record);
        }
    }

    private GeneratedRecord valid(TableConfig table, long time) {
        GenericRecord event = event(table, time);
        return new GeneratedRecord(
                table.name(),
                table.topic(),
                key(event, table),
                encode(table, event),
                GeneratedRecord.Kind.VALID,
                null,
                event.get(table.id()).toString(),
                time);
    }

    private GeneratedRecord invalid(long nominal) {
        for (int attempt = 0; ; attempt++) {
            Reason reason = INVALID_CYCLE[invalidTurn++ % INVALID_CYCLE.length];
            TableConfig table = pickTable();
            byte[] value = invalidValue(table, reason, nominal);
            if (value != null) {
                GenericRecord base = event(table, nominal);
                return new GeneratedRecord(
                        table.name(),
                        table.topic(),
                        key(base, table),
                        value,
                        GeneratedRecord.Kind.INVALID,
                        reason,
                        null,
                        0L);
            }
            if (attempt > 4 * INVALID_CYCLE.length) {
                // Only reachable when no table can carry any kind; MALFORMED always can.
                throw new IllegalStateException("no invalid record kind applies");
            }
        }
    }

    /** An invalid value of the given kind for the table, or null if the kind cannot apply. */
    private byte[] invalidValue(TableConfig table, Reason reason, long nominal) {
        boolean avro = table.format() == TableFormat.AVRO;
        GenericRecord event = event(table, nominal);
        switch (reason) {
            case MALFORMED:
                byte[] good = encode(table, event);
                return Arrays.copyOf(good, good.length / 2);
            case WRONG_TYPE:
                if (avro) {
                    return null; // binary Avro has no field types to get wrong
                }
                ObjectNode wrong = json(table, event);
                wrong.put(table.eventTime(), "yesterday-ish");
                return bytes(wrong);
            case MISSING_FIELD:
                if (avro) {
                    return null;
                }
                ObjectNode missing = json(table, event);
                missing.remove(table.key());
                return bytes(missing);
            case UNKNOWN_FIELD:
                if (avro || !table.strict()) {
                    return null;
                }
                ObjectNode extra = json(table, event);
                extra.put("loyalty_tier", "gold");
                return bytes(extra);
            case OVERSIZE:
                event.put("session_id", "s".repeat(table.maxRecordBytes() + 1));
                return encode(table, event);
            case TIMESTAMP_OUT_OF_RANGE:
                pastTurn = !pastTurn;
                long bad =
                        pastTurn
                                ? Instant.parse("1971-01-01T00:00:00Z").toEpochMilli()
                                : options.start().plusSeconds(10L * 365 * 86_400).toEpochMilli();
                event.put(table.eventTime(), bad);
                return encode(table, event);
            case UNKNOWN_SCHEMA:
                if (!avro) {
                    return null;
                }
                byte[] body = encode(table, event);
                ByteBuffer.wrap(body, 2, 8).putLong(random.nextLong()); // a fingerprint no one has
                return body;
            default:
                return null;
        }
    }

    private GenericRecord event(TableConfig table, long time) {
        Schema schema = table.schema();
        GenericData.Record r = new GenericData.Record(schema);
        int user = users.sample(random);
        int item = items.sample(random);
        String category = CATEGORIES[(item * 7) % CATEGORIES.length];
        r.put("event_id", new UUID(random.nextLong(), random.nextLong()).toString());
        r.put("event_time", time);
        r.put("user_id", String.format("u%06d", user));
        r.put("session_id", String.format("s%06d-%d", user, time / 1_800_000L));
        r.put(
                "device",
                new GenericData.EnumSymbol(
                        schema.getField("device").schema(),
                        DEVICES[random.nextInt(DEVICES.length)]));
        r.put("country", COUNTRIES[user % COUNTRIES.length]);
        String itemId = String.format("i%05d", item);
        float price =
                (float)
                        (Math.round((1.99 + (item * 37 % 500) + random.nextInt(100) / 100.0) * 100)
                                / 100.0);
        switch (table.schemaName()) {
            case "PageView" -> {
                boolean product = random.nextDouble() < 0.6;
                r.put("page", product ? "/item/" + itemId : random.nextBoolean() ? "/" : "/search");
                r.put("item_id", product ? itemId : null);
                r.put("category", product ? category : null);
                r.put(
                        "referrer",
                        random.nextDouble() < 0.3
                                ? REFERRERS[random.nextInt(REFERRERS.length)]
                                : null);
            }
            case "AddToCart" -> {
                r.put("item_id", itemId);
                r.put("category", category);
                r.put("price", price);
                r.put("quantity", 1 + (random.nextDouble() < 0.8 ? 0 : random.nextInt(4)));
            }
            case "Purchase" -> {
                r.put("order_id", "o" + (++orders));
                r.put("item_id", itemId);
                r.put("category", category);
                r.put("price", price);
                r.put("quantity", 1 + (random.nextDouble() < 0.85 ? 0 : random.nextInt(3)));
                r.put("payment_method", PAYMENTS[random.nextInt(PAYMENTS.length)]);
                if (schemaHas(schema, "coupon")) {
                    r.put("coupon", random.nextDouble() < 0.1 ? "SAVE10" : null);
                }
            }
            default -> throw new IllegalStateException(table.schemaName());
        }
        return r;
    }

    private static boolean schemaHas(Schema schema, String field) {
        return schema.getField(field) != null;
    }

    private static byte[] key(GenericRecord event, TableConfig table) {
        return event.get(table.key()).toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] encode(TableConfig table, GenericRecord event) {
        if (table.format() == TableFormat.AVRO) {
            try {
                return new BinaryMessageEncoder<GenericRecord>(GenericData.get(), table.schema())
                        .encode(event)
                        .array();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bytes(json(table, event));
    }

    /** Plain JSON as producers write it: nullable fields as values, event time as ISO-8601. */
    private static ObjectNode json(TableConfig table, GenericRecord event) {
        ObjectNode node = JSON.createObjectNode();
        for (Schema.Field f : event.getSchema().getFields()) {
            Object v = event.get(f.pos());
            if (f.name().equals(table.eventTime()) && v instanceof Long millis) {
                node.put(f.name(), Instant.ofEpochMilli(millis).toString());
            } else if (v == null) {
                node.putNull(f.name());
            } else if (v instanceof Integer i) {
                node.put(f.name(), i);
            } else if (v instanceof Long l) {
                node.put(f.name(), l);
            } else if (v instanceof Float fl) {
                node.put(f.name(), fl);
            } else if (v instanceof Double d) {
                node.put(f.name(), d);
            } else {
                node.put(f.name(), v.toString());
            }
        }
        return node;
    }

    private static byte[] bytes(ObjectNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
