package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
import io.sluice.lake.HourManifest;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spine row the warehouse cannot answer whole is never answered as if it could: over a real
 * warehouse of the three shop tables (six hours of generated events from {@link #START}, compacted)
 * in which page_views' hour 04 is open again (its {@code _SUCCESS} gone) and add_to_cart's hour 03
 * is complete but not compacted from its current landing (its {@code _SUCCESS} changed), a row is
 * INCOMPLETE in a view exactly when its time is later than the view's boundary: 03:00 for user_cart
 * (its window, or the retention that decides NOT_FOUND, needs hour 03), 04:00 for user_activity,
 * and 06:00, the end of the last complete, compacted hour, for user_purchases. Those boundaries are
 * written here from how the lake was built, not asked of the code under test. With {@code MARK}
 * every other value equals the brute-force definition; with {@code REFUSE} the request fails naming
 * the rows and hours.
 */
class TrainingSetCompletenessITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    private static final Instant START = Instant.parse("2026-11-20T00:00:00Z");
    private static final long HOUR = 3_600_000;
    private static final long MS = 1_000_000; // nanos

    @TempDir static Path root;

    static SluiceConfig config;
    static final Map<String, ViewDef> defs = new LinkedHashMap<>();
    static final Map<String, Map<String, List<EventEntry>>> events = new HashMap<>();

    /** Per view, the last time (epoch nanos) the warehouse answers whole. */
    static final Map<String, Long> boundary = new LinkedHashMap<>();

    static List<String> users;

    /** Every event of every view, as (user, time): a random one picks active users more often. */
    static final List<Row> activity = new ArrayList<>();

    /** The {@code _SUCCESS} page_views' hour 04 was compacted from, before it was removed. */
    static byte[] activityManifest;

    @BeforeAll
    static void warehouse() throws IOException {
        config = TestConfigs.shop(root, "localhost:9", "tc");
        GeneratorOptions options = GeneratorOptions.defaults(9_000, 17).withStart(START);
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(config.tables(), options).run(generated::add);
        for (TableConfig table : config.tables()) {
            LandingHours.write(root, table, generated, 1, false);
            CompactedHours.compactAll(config, table);
        }
        TreeSet<String> known = new TreeSet<>();
        for (FeatureViewConfig view : config.featureViews()) {
            TableConfig table = config.table(view.source()).orElseThrow();
            defs.put(view.name(), ViewDef.of(view, table));
            events.put(view.name(), Expected.events(view, table, generated));
            known.addAll(events.get(view.name()).keySet());
        }
        users = new ArrayList<>(known);
        for (Map<String, List<EventEntry>> byUser : events.values()) {
            byUser.forEach((u, list) -> list.forEach(e -> activity.add(new Row(u, e.ts() * MS))));
        }
        // Every table's last hour is 05 (the generator's six hours end at 06:00).
        for (TableConfig table : config.tables()) {
            assertThat(raw(table.name(), "dt=2026-11-20/hr=05").resolve(HourManifest.NAME))
                    .isRegularFile();
            assertThat(raw(table.name(), "dt=2026-11-20/hr=06")).doesNotExist();
        }
        Path activity = raw("page_views", "dt=2026-11-20/hr=04").resolve(HourManifest.NAME);
        activityManifest = Files.readAllBytes(activity);
        Files.delete(activity);
        Path cart = raw("add_to_cart", "dt=2026-11-20/hr=03").resolve(HourManifest.NAME);
        Files.writeString(cart, Files.readString(cart).replace("{", "{ "));
        boundary.put("user_activity", nanos(START.plusSeconds(4 * 3600)));
        boundary.put("user_cart", nanos(START.plusSeconds(3 * 3600)));
        boundary.put("user_purchases", nanos(START.plusSeconds(6 * 3600)));
    }

    private static Path raw(String table, String partition) {
        return root.resolve("raw").resolve(table).resolve(partition);
    }

    private static long nanos(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    }

    /** One spine row: an entity at a time in epoch nanos (whole microseconds). */
    record Row(String user, long nanos) {}

    /**
     * Random users (and a user never seen) at random microsecond times from an hour before {@link
     * #START} to two hours after the warehouse ends, and rows at each boundary, a microsecond
     * before it and a microsecond after it.
     */
    private static List<Row> rows(long seed, int n, long until) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Row> rows = new ArrayList<>();
        long from = START.toEpochMilli() - HOUR;
        for (int i = 0; i < n; i++) {
            long t = (from + random.nextLong(until - from)) * MS + random.nextInt(1000) * 1000L;
            if (i % 40 == 0) {
                rows.add(new Row("nobody", t));
            } else if (i % 2 == 0) {
                rows.add(new Row(users.get(random.nextInt(users.size())), t));
            } else {
                // A user with an event, within the next 90 minutes of it.
                Row event = activity.get(random.nextInt(activity.size()));
                long near = event.nanos() + random.nextLong(90 * 60_000_000L) * 1000;
                rows.add(new Row(event.user(), Math.min(near, until * MS - 1000)));
            }
        }
        for (long b : new TreeSet<>(boundary.values())) {
            if (b < until * MS) {
                for (long d : new long[] {-1000, 0, 1000}) {
                    rows.add(new Row(users.get(random.nextInt(users.size())), b + d));
                    rows.add(new Row("nobody", b + d));
                }
            }
        }
        return rows;
    }

    private static Path spine(String name, List<Row> rows) throws IOException {
        Schema schema = SpineSchemas.userLabel("timestamp-micros");
        Path file = root.resolve(name);
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            GenericData.Record r = new GenericData.Record(schema);
            r.put("user_id", rows.get(i).user());
            r.put("event_timestamp", rows.get(i).nanos() / 1000);
            r.put("label", i);
            records.add(r);
        }
        ParquetFiles.write(file, schema, records);
        return file;
    }

    private static List<FeatureRef> allFeatures() {
        List<FeatureRef> refs = new ArrayList<>();
        for (ViewDef def : defs.values()) {
            def.features().forEach(f -> refs.add(new FeatureRef(def.name(), f.name())));
        }
        return refs;
    }

    private static TrainingSetRequest request(Path spine, TrainingSetRequest.Incomplete mode) {
        return new TrainingSetRequest(
                spine, allFeatures(), "event_timestamp", Optional.empty(), true, mode);
    }

    /**
     * Checks every row of {@code result} against the definition, or INCOMPLETE where the row's time
     * is past its view's boundary in {@code boundaries}; returns per view how many rows were
     * INCOMPLETE.
     */
    private static Map<String, Long> check(
            TrainingSetResult result, List<Row> rows, Map<String, Long> boundaries) {
        Map<String, Long> incomplete = new LinkedHashMap<>();
        boundaries.keySet().forEach(v -> incomplete.put(v, 0L));
        long computed = 0;
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> out =
                    duck.rows(
                            "select *, epoch_us(event_timestamp) as t_us from read_parquet('"
                                    + result.glob()
                                    + "')");
            assertThat(out).hasSize(rows.size());
            for (int i = 0; i < out.size(); i++) {
                Map<String, Object> row = out.get(i);
                Row want = rows.get(i);
                assertThat(row.get("label")).isEqualTo(i);
                assertThat(((Number) row.get("t_us")).longValue() * 1000).isEqualTo(want.nanos());
                for (ViewDef def : defs.values()) {
                    boolean past = want.nanos() > boundaries.get(def.name());
                    if (past) {
                        incomplete.merge(def.name(), 1L, Long::sum);
                    }
                    for (FeatureDef f : def.features()) {
                        FeatureValue expected =
                                past
                                        ? new FeatureValue(null, Status.INCOMPLETE, -1)
                                        : Definition.valueAtNanos(
                                                def,
                                                f,
                                                want.nanos(),
                                                events.get(def.name())
                                                        .getOrDefault(want.user(), List.of()));
                        String column = def.name() + "__" + f.name();
                        String what =
                                column
                                        + " of "
                                        + want.user()
                                        + " at "
                                        + Instant.ofEpochSecond(0, want.nanos());
                        SameValue.assertCell(what, expected, row, column);
                        computed += expected.status() == Status.OK ? 1 : 0;
                    }
                }
            }
        }
        assertThat(computed).as("values computed from events").isGreaterThan(600);
        for (ViewDef def : defs.values()) {
            assertThat(
                            result.statuses()
                                    .get(def.name() + ":" + def.features().get(0).name())
                                    .getOrDefault(Status.INCOMPLETE, 0L))
                    .as(def.name())
                    .isEqualTo(incomplete.get(def.name()));
        }
        return incomplete;
    }

    @Test
    void shouldMarkExactlyTheRowsPastEachViewsWholeDataAndComputeTheRest() throws IOException {
        List<Row> rows = rows(1, 500, START.toEpochMilli() + 8 * HOUR);
        Path spine = spine("marked.parquet", rows);
        TrainingSetResult result =
                new TrainingSetBuilder(config, 2)
                        .build(request(spine, TrainingSetRequest.Incomplete.MARK));
        Map<String, Long> incomplete = check(result, rows, boundary);
        // Rows whole in every view, INCOMPLETE in user_cart only, in user_cart and user_activity,
        // and in all three.
        assertThat(incomplete.get("user_cart"))
                .isGreaterThan(incomplete.get("user_activity"))
                .isLessThan(rows.size());
        assertThat(incomplete.get("user_activity")).isGreaterThan(incomplete.get("user_purchases"));
        assertThat(incomplete.get("user_purchases")).isGreaterThan(20);
        // The same request again is the same artifact.
        assertThat(
                        new TrainingSetBuilder(config, 1)
                                .build(request(spine, TrainingSetRequest.Incomplete.MARK))
                                .reused())
                .isTrue();
    }

    @Test
    void shouldRefuseNamingTheRowsAndTheHoursByDefault() throws IOException {
        List<Row> rows = rows(2, 300, START.toEpochMilli() + 8 * HOUR);
        Path spine = spine("refused.parquet", rows);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 2);
        TrainingSetRequest request = TrainingSetRequest.of(spine, allFeatures());
        assertThat(request.incomplete()).isEqualTo(TrainingSetRequest.Incomplete.REFUSE);
        List<Path> artifacts = artifacts(builder);
        IncompleteDataException e =
                catchThrowableOfType(IncompleteDataException.class, () -> builder.build(request));
        assertThat(e).isNotNull();

        long cart = boundary.get("user_cart");
        List<Integer> late = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).nanos() > cart) {
                late.add(i);
            }
        }
        assertThat(e.rows()).isEqualTo(late.size());
        assertThat(e.getMessage())
                .startsWith(
                        String.format(
                                "%,d of %,d spine rows need events that the warehouse does not"
                                        + " hold whole",
                                late.size(), rows.size()))
                .contains(
                        "view user_cart, table add_to_cart: hour dt=2026-11-20/hr=03 is complete"
                                + " but not compacted",
                        "run `sluice compact` first",
                        String.format("; %,d rows, e.g. ", late.size()),
                        "view user_activity, table page_views: hour dt=2026-11-20/hr=04 is still"
                                + " open",
                        "view user_purchases, table purchases: hour dt=2026-11-20/hr=06 has not"
                                + " landed or is not complete yet (the warehouse covers purchases"
                                + " before 2026-11-20T06:00:00Z, the end of its last complete,"
                                + " compacted hour dt=2026-11-20/hr=05)",
                        "--incomplete mark");
        // The first few rows of a group, in spine order, by row number (from 1), entity and time.
        StringBuilder examples = new StringBuilder();
        for (int k = 0; k < 3; k++) {
            int i = late.get(k);
            examples.append(k == 0 ? "" : ", ")
                    .append(
                            String.format(
                                    "row %d (user_id %s at %s)",
                                    i + 1,
                                    rows.get(i).user(),
                                    Instant.ofEpochSecond(0, rows.get(i).nanos())));
        }
        assertThat(e.getMessage())
                .contains(
                        "hour dt=2026-11-20/hr=03 is complete but not compacted (or changed since"
                                + " it was): run `sluice compact` first; "
                                + String.format("%,d rows, e.g. ", late.size())
                                + examples);
        assertThat(artifacts(builder)).as("nothing was written").isEqualTo(artifacts);
    }

    private static List<Path> artifacts(TrainingSetBuilder builder) throws IOException {
        if (!Files.isDirectory(Path.of(builder.artifacts()))) {
            return List.of();
        }
        try (var files = Files.list(Path.of(builder.artifacts()))) {
            return files.sorted().toList();
        }
    }

    @Test
    void shouldBuildASpineTheWarehouseHoldsWholeTheSameInEitherMode() throws IOException {
        // Up to user_cart's boundary, the earliest: every row is whole in every view.
        long until = START.toEpochMilli() + 3 * HOUR;
        List<Row> rows = rows(3, 300, until);
        rows.add(new Row(users.get(0), until * MS)); // exactly at it: x.ts < 03:00 only
        Path spine = spine("whole.parquet", rows);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 2);
        TrainingSetResult refused =
                builder.build(request(spine, TrainingSetRequest.Incomplete.REFUSE));
        Map<String, Long> none = new LinkedHashMap<>();
        defs.keySet().forEach(v -> none.put(v, Long.MAX_VALUE));
        check(refused, rows, none);
        TrainingSetResult marked =
                builder.build(request(spine, TrainingSetRequest.Incomplete.MARK));
        assertThat(marked.reused()).isTrue();
        assertThat(marked.digest()).isEqualTo(refused.digest());
    }

    @Test
    void shouldAnswerRowsOnceTheirHoursAreWhole() throws IOException {
        List<Row> rows = rows(4, 300, START.toEpochMilli() + 8 * HOUR);
        Path spine = spine("healed.parquet", rows);
        TrainingSetBuilder builder = new TrainingSetBuilder(config, 2);
        TrainingSetResult before =
                builder.build(request(spine, TrainingSetRequest.Incomplete.MARK));
        Path activity = raw("page_views", "dt=2026-11-20/hr=04").resolve(HourManifest.NAME);
        try {
            // The hour's landing published again as it was compacted: its warehouse hour is
            // current, and the rows that needed it are answered.
            Files.write(activity, activityManifest);
            TrainingSetResult after =
                    builder.build(request(spine, TrainingSetRequest.Incomplete.MARK));
            assertThat(after.reused()).isFalse();
            assertThat(after.digest()).isNotEqualTo(before.digest());
            Map<String, Long> healed = new LinkedHashMap<>(boundary);
            healed.put("user_activity", boundary.get("user_purchases"));
            check(after, rows, healed);
            assertThatThrownBy(
                            () ->
                                    builder.build(
                                            request(spine, TrainingSetRequest.Incomplete.REFUSE)))
                    .isInstanceOf(IncompleteDataException.class)
                    .hasMessageNotContaining("dt=2026-11-20/hr=04");
        } finally {
            Files.deleteIfExists(activity);
        }
    }
}
