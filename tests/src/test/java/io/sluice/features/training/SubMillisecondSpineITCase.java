package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.compact.testing.CompactedHours;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.testing.Definition;
import io.sluice.features.testing.Expected;
import io.sluice.features.testing.ParquetFiles;
import io.sluice.features.testing.SameValue;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spines with micro- and nanosecond times (as pandas, Spark and Arrow write them) on both sides of
 * tile, hour, window and retention edges, over a warehouse of events placed at those edges: every
 * value equals the definition evaluated at the spine's exact time. Rounding the time to a
 * millisecond before taking {@code floor_s(t)}, as the builder did, moves the window's tail a tile
 * later in the last millisecond before a tile edge; the cases include those rows, and the test
 * shows that the rounded time's definition differs there.
 */
class SubMillisecondSpineITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    private static final long MS = 1_000_000; // nanos
    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;

    @TempDir static Path root;

    static SluiceConfig config;
    static FeatureViewConfig view;
    static TableConfig table;
    static ViewDef def;
    static Map<String, List<EventEntry>> events;

    /** 03:17 two days ago: a tile edge inside an hour. */
    static long tileEdge;

    /** 05:00 two days ago: an hour edge. */
    static long hourEdge;

    @BeforeAll
    static void warehouse() throws IOException {
        config = TestConfigs.shop(root, "localhost:9", "ts");
        view = config.featureView("user_purchases").orElseThrow();
        table = config.table(view.source()).orElseThrow();
        def = ViewDef.of(view, table);
        // Recent enough for the tables' max_past (30 days) to accept events a ttl (7d) before.
        long day =
                Instant.now().truncatedTo(ChronoUnit.DAYS).minus(2, ChronoUnit.DAYS).toEpochMilli();
        tileEdge = day + 3 * HOUR + 17 * MINUTE;
        hourEdge = day + 5 * HOUR;

        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(
                        List.of(table),
                        GeneratorOptions.defaults(5, 3)
                                .withStart(Instant.ofEpochMilli(day))
                                .withRates(0, 0, 0))
                .run(generated::add);
        ObjectNode template = (ObjectNode) new ObjectMapper().readTree(generated.get(0).value());
        // Per edge E, events at E − W − 1min − 1ms, E − W − 1min, E − W − 1ms and E − W for W in
        // 0 and the view's windows (1h, 24h, 7d = its ttl), and at E + 1ms; and an entity known
        // only by an event at E − ttl − 1ms.
        List<GeneratedRecord> records = new ArrayList<>();
        for (long edge : new long[] {tileEdge, hourEdge}) {
            for (long w : new long[] {0, HOUR, 24 * HOUR, def.ttlMillis()}) {
                for (long offset : new long[] {-MINUTE - 1, -MINUTE, -1, 0}) {
                    records.add(event(template, "edge-" + edge, edge - w + offset, records.size()));
                }
            }
            records.add(event(template, "edge-" + edge, edge + 1, records.size()));
            records.add(
                    event(template, "lonely-" + edge, edge - def.ttlMillis() - 1, records.size()));
        }
        LandingHours.write(root, table, records, 1, false);
        CompactedHours.compactAll(config, table);
        events = Expected.events(view, table, records);
        assertThat(events.get("edge-" + tileEdge)).hasSize(17);
    }

    /** A purchase of {@code entity} at {@code ts}, from a generated one. */
    private static GeneratedRecord event(ObjectNode template, String entity, long ts, int i) {
        ObjectNode json = template.deepCopy();
        String id = "sub-" + i;
        json.put("event_id", id);
        json.put("event_time", Instant.ofEpochMilli(ts).toString());
        json.put("user_id", entity);
        json.put("price", 1.25f + i);
        json.put("category", "c" + (i % 5));
        json.put("payment_method", i % 2 == 0 ? "card" : "paypal");
        return new GeneratedRecord(
                table.name(),
                table.topic(),
                entity.getBytes(StandardCharsets.UTF_8),
                json.toString().getBytes(StandardCharsets.UTF_8),
                GeneratedRecord.Kind.VALID,
                null,
                id,
                ts);
    }

    /** One spine row: an entity at an exact time in epoch nanos. */
    record Row(String entity, long nanos) {}

    /**
     * Rows of each entity at times around each edge E: the last microseconds and nanosecond before
     * it (03:16:59.999409 for 03:17), E, and just after; the same around E − 1ms, where an event
     * lies, and E + 1ms; and the last millisecond before the tile edge before E. With {@code
     * micros}, only the times that are whole microseconds.
     */
    static List<Row> rows(boolean micros) {
        List<Row> rows = new ArrayList<>();
        for (long edge : new long[] {tileEdge, hourEdge}) {
            long e = edge * MS;
            long[] times = {
                e - 591_000,
                e - 1_000,
                e - 1,
                e,
                e + 1,
                e + 1_000,
                e - MS - 1,
                e - MS,
                e - MS + 1,
                e - MS + 1_000,
                e - MS + 591_000,
                e + MS - 1,
                e + MS,
                e + MS + 1_000,
                e - MINUTE * MS - 591_000
            };
            for (long t : times) {
                if (micros && t % 1_000 != 0) {
                    continue;
                }
                for (String entity : List.of("edge-" + edge, "lonely-" + edge, "nobody")) {
                    rows.add(new Row(entity, t));
                }
            }
        }
        return rows;
    }

    private static List<FeatureRef> allFeatures() {
        return view.features().stream().map(f -> new FeatureRef(view.name(), f.name())).toList();
    }

    /** A Parquet spine written through Avro, its time column of {@code logicalType}. */
    private static Path avroSpine(String name, String logicalType, List<Row> rows)
            throws IOException {
        Schema schema = SpineSchemas.userLabel(logicalType);
        long unit = logicalType.endsWith("micros") ? 1_000 : 1;
        Path file = root.resolve(name);
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            GenericData.Record r = new GenericData.Record(schema);
            r.put("user_id", rows.get(i).entity());
            r.put("event_timestamp", rows.get(i).nanos() / unit);
            r.put("label", i);
            records.add(r);
        }
        ParquetFiles.write(file, schema, records);
        return file;
    }

    /** The UTC date-time of {@code nanos} as text, {@code yyyy-MM-dd HH:mm:ss.fffffffff}. */
    private static String utc(long nanos) {
        return LocalDateTime.ofEpochSecond(
                        Math.floorDiv(nanos, 1_000_000_000L),
                        (int) Math.floorMod(nanos, 1_000_000_000L),
                        ZoneOffset.UTC)
                .toString()
                .replace('T', ' ');
    }

    @Test
    void shouldEqualTheDefinitionAtMicrosecondTimes() throws IOException {
        List<Row> rows = rows(true);
        check(avroSpine("micros.parquet", "timestamp-micros", rows), rows, "epoch_ns");
    }

    @Test
    void shouldEqualTheDefinitionAtNanosecondTimes() throws IOException {
        List<Row> rows = rows(false);
        check(avroSpine("nanos.parquet", "timestamp-nanos", rows), rows, "epoch_ns");
    }

    /** As pandas writes datetime64[ns] without a zone: Parquet TIMESTAMP(NANOS), not UTC. */
    @Test
    void shouldEqualTheDefinitionOnASpineDuckDbWroteInNanoseconds() throws IOException {
        List<Row> rows = rows(false);
        Path file = root.resolve("duckdb-nanos.parquet");
        try (DuckDb duck = new DuckDb()) {
            duck.execute(
                    "create table spine (user_id varchar, event_timestamp timestamp_ns, label"
                            + " integer)");
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < rows.size(); i++) {
                values.append(i == 0 ? "" : ", ")
                        .append(
                                String.format(
                                        "('%s', '%s'::timestamp_ns, %d)",
                                        rows.get(i).entity(), utc(rows.get(i).nanos()), i));
            }
            duck.execute("insert into spine values " + values);
            duck.execute("copy (select * from spine order by label) to '" + file + "'");
        }
        check(file, rows, "epoch_ns");
    }

    @Test
    void shouldEqualTheDefinitionOnACsvSpineOfIsoTimesWithNanoseconds() throws IOException {
        List<Row> rows = rows(false);
        StringBuilder csv = new StringBuilder("user_id,event_timestamp,label\n");
        for (int i = 0; i < rows.size(); i++) {
            long t = rows.get(i).nanos();
            // Both textual forms: an ISO instant, and a UTC date-time.
            String time = i % 2 == 0 ? Instant.ofEpochSecond(0, t).toString() : utc(t);
            csv.append(rows.get(i).entity()).append(',').append(time).append(',').append(i);
            csv.append('\n');
        }
        Path file = root.resolve("spine.csv");
        Files.writeString(file, csv);
        check(file, rows, null);
    }

    /**
     * Builds the training set of {@code spine} and checks each row: the spine's columns unchanged
     * (its time read back as {@code timeToNanos(event_timestamp)}, or compared as text), and every
     * feature equal to the definition at the row's exact time.
     */
    private static void check(Path spine, List<Row> rows, String timeToNanos) throws IOException {
        List<FeatureRef> refs = allFeatures();
        TrainingSetResult result =
                new TrainingSetBuilder(config, 2)
                        .build(
                                new TrainingSetRequest(
                                        spine, refs, "event_timestamp", Optional.empty(), true));
        assertThat(result.rows()).isEqualTo(rows.size());
        int roundedWrong = 0;
        int rowsRoundedWrong = 0;
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> out =
                    duck.rows(
                            "select *"
                                    + (timeToNanos == null
                                            ? ""
                                            : ", " + timeToNanos + "(event_timestamp) as t_ns")
                                    + " from read_parquet('"
                                    + result.glob()
                                    + "')");
            assertThat(out).hasSize(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                Map<String, Object> row = out.get(i);
                Row want = rows.get(i);
                assertThat(String.valueOf(row.get("label"))).isEqualTo(String.valueOf(i));
                assertThat(row.get("user_id")).isEqualTo(want.entity());
                if (timeToNanos != null) {
                    // The time column is written unchanged, at its precision.
                    assertThat(((Number) row.get("t_ns")).longValue()).isEqualTo(want.nanos());
                }
                List<EventEntry> own = events.getOrDefault(want.entity(), List.of());
                long rounded = Math.floorDiv(want.nanos() + MS - 1, MS) * MS; // ceil to a ms
                boolean differs = false;
                for (FeatureRef ref : refs) {
                    FeatureDef f = def.feature(ref.feature());
                    FeatureValue expected = Definition.valueAtNanos(def, f, want.nanos(), own);
                    String column = ref.view() + "__" + ref.feature();
                    String what =
                            column
                                    + " of "
                                    + want.entity()
                                    + " at "
                                    + Instant.ofEpochSecond(0, want.nanos());
                    SameValue.assertCell(what, expected, row, column);
                    FeatureValue old = Definition.valueAtNanos(def, f, rounded, own);
                    if (old.status() != expected.status()
                            || !Objects.equals(old.value(), expected.value())) {
                        roundedWrong++;
                        differs = true;
                    }
                }
                rowsRoundedWrong += differs ? 1 : 0;
                if (want.nanos() == tileEdge * MS - 591_000) {
                    // 03:16:59.999409 for the edge 03:17: see below.
                    if (want.entity().equals("edge-" + tileEdge)) {
                        assertThat(row.get("user_purchases__purchases_1h")).isEqualTo(6L);
                    } else if (want.entity().equals("lonely-" + tileEdge)) {
                        assertThat(row.get("user_purchases__purchases_7d")).isEqualTo(1L);
                    }
                }
            }
        }
        // The old rounding (the time rounded up to a millisecond, then floor_s of that) would have
        // got these wrong: the cases include the rows whose window's tail it moved.
        assertThat(roundedWrong).as("values the rounded time gets wrong").isPositive();
        assertThat(rowsRoundedWrong).isGreaterThanOrEqualTo(2);
        long last = tileEdge * MS - 591_000; // 03:16:59.999409 for the edge 03:17
        FeatureDef hour = def.feature("purchases_1h");
        // [03:16 − 1h, 03:16:59.999409) holds the events at E − 1h − 1min, E − 1h − 1ms, E − 1h,
        // E − 1min − 1ms, E − 1min and E − 1ms; [03:17 − 1h, 03:17) misses the first two.
        assertThat(
                        Definition.valueAtNanos(hour, MINUTE, last, events.get("edge-" + tileEdge))
                                .value())
                .isEqualTo(6L);
        assertThat(
                        Definition.valueAtNanos(
                                        hour, MINUTE, tileEdge * MS, events.get("edge-" + tileEdge))
                                .value())
                .isEqualTo(4L);
        // An entity whose one event is a ttl and a millisecond before the edge is known in the
        // millisecond before it, and unknown at it.
        assertThat(
                        Definition.valueAtNanos(
                                        def,
                                        def.feature("purchases_7d"),
                                        last,
                                        events.get("lonely-" + tileEdge))
                                .value())
                .isEqualTo(1L);
        assertThat(
                        Definition.valueAtNanos(
                                        def,
                                        def.feature("purchases_7d"),
                                        tileEdge * MS,
                                        events.get("lonely-" + tileEdge))
                                .status())
                .isEqualTo(Status.NOT_FOUND);
    }
}
