package io.sluice.features.training;

import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.config.Nullable;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.lake.HiveBucketing;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * What a training set reads, decided before the job runs, from one streaming pass over the spine
 * (its columns, row count and time range; no row is kept): per requested view its features, its
 * entity column and what its source table's warehouse holds whole ({@link CompleteHours}); the
 * views grouped by entity, one pass of the job each; and the warehouse hours the spine's time range
 * can touch, whose manifests address the artifact. Refuses a request it cannot answer (unknown or
 * repeated features, missing columns, a row without a time). Its views and groups ship to the job's
 * tasks.
 */
final class TrainingPlan {

    /** The internal column carrying each row's position in the spine (from 0). */
    static final String ROW_COLUMN = "__sluice_spine_row";

    /**
     * The views of one entity whose tables bucket it alike, computed in one pass of the job: the
     * spine partitioned by the bucket of that entity's key.
     *
     * @param entity the spine column
     * @param views the requested views of that entity
     */
    record Group(String entity, List<PlannedView> views) implements Serializable {
        /** The table whose buckets partition the pass (the first view's). */
        TableConfig table() {
            return views.get(0).table;
        }
    }

    /** The requested features, resolved, in output order. */
    final List<FeatureRefs.Resolved> features;

    final List<PlannedView> views = new ArrayList<>();
    final List<Group> groups = new ArrayList<>();

    /** The spine's columns, as JSON (Avro schemas ship as text). */
    final String spineSchema;

    /**
     * The rows as the job carries them: the output's columns, statuses, then {@link #ROW_COLUMN}.
     */
    final String internalSchema;

    final int timeColumn;
    final int featureCount;
    final Optional<Sample> sample;

    /** The spine's rows. */
    long rows;

    /** The earliest row time's tail and the latest's end ({@link #tail}, {@link #end}). */
    long firstTail = Long.MAX_VALUE;

    long lastEnd = Long.MIN_VALUE;

    /** Warehouse hours the spine's time range can touch, as {@code table/dt=…/hr=…}. */
    final List<String> partitions = new ArrayList<>();

    /**
     * Per such hour, {@code table/partition sha256(its files)}: part of the digest, with {@link
     * #snapshots}.
     */
    final List<String> manifests = new ArrayList<>();

    /** Per table read, the Iceberg snapshot read (none without a catalog), in view order. */
    final Map<String, Long> snapshots = new LinkedHashMap<>();

    private TrainingPlan(
            List<FeatureRefs.Resolved> features,
            Schema spine,
            Schema internal,
            int timeColumn,
            Optional<Sample> sample) {
        this.features = features;
        this.featureCount = features.size();
        this.spineSchema = spine.toString();
        this.internalSchema = internal.toString();
        this.timeColumn = timeColumn;
        this.sample = sample;
    }

    Schema spineSchema() {
        return new Schema.Parser().parse(spineSchema);
    }

    /** The view plan of view {@code name}. */
    PlannedView view(String name) {
        return views.stream().filter(v -> v.view.name().equals(name)).findFirst().orElseThrow();
    }

    /** {@code floor_ms(t)}: where a row's windows' tails are cut ({@code floor_s(t)}). */
    static long tail(Instant t) {
        return Windows.floorMillis(t);
    }

    /** {@code ceil_ms(t)}: where a row's windows' heads end ({@code x.ts < t}). */
    static long end(Instant t) {
        return Windows.ceilMillis(t);
    }

    static TrainingPlan of(SluiceConfig config, TrainingSetRequest request) throws IOException {
        List<FeatureRefs.Resolved> resolved;
        try {
            resolved = FeatureRefs.resolve(FeatureRefs.views(config), request.features());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--features: " + e.getMessage());
        }
        // The time and entity columns of a CSV spine stay text; its other columns get the type
        // their values have.
        Set<String> text = new java.util.HashSet<>();
        text.add(request.timestampColumn());
        for (FeatureRefs.Resolved r : resolved) {
            config.featureView(r.view().name()).ifPresent(v -> text.add(v.entity()));
        }
        try (Spine.Rows rows = Spine.open(request.spine(), text)) {
            Spine spine = new Spine(request.spine(), rows.schema(), List.of());
            Schema.Field time =
                    spine.column(
                            request.timestampColumn(), "the time column; see --timestamp-column");
            Schema internal =
                    TrainingSetWriter.internalSchema(spine.schema(), resolved, ROW_COLUMN);
            TrainingPlan plan =
                    new TrainingPlan(
                            resolved, spine.schema(), internal, time.pos(), request.sample());
            plan.planViews(config);
            plan.checkEntityColumns(spine);
            for (GenericRecord r = rows.next(); r != null; r = rows.next()) {
                Instant t = Spine.time(r.get(time.pos()), time, plan.rows);
                plan.firstTail = Math.min(plan.firstTail, tail(t));
                plan.lastEnd = Math.max(plan.lastEnd, end(t));
                plan.rows++;
            }
            plan.planHours(config, request.snapshots());
            return plan;
        }
    }

    private void planViews(SluiceConfig config) {
        Map<String, PlannedView> byName = new LinkedHashMap<>();
        for (int i = 0; i < features.size(); i++) {
            FeatureRefs.Resolved r = features.get(i);
            FeatureRef ref = r.ref();
            PlannedView vp =
                    byName.computeIfAbsent(
                            r.view().name(),
                            n -> {
                                var view = config.featureView(n).orElseThrow();
                                TableConfig table = config.table(view.source()).orElseThrow();
                                return new PlannedView(r.view(), table, view.entity());
                            });
            if (vp.features.contains(r.feature())) {
                throw new IllegalArgumentException("--features: " + ref + " is named twice");
            }
            vp.features.add(r.feature());
            vp.columns.add(i);
        }
        views.addAll(byName.values());
        groups.addAll(groups(views));
    }

    /**
     * The passes {@code views} take: one per entity column and way of bucketing it. A pass
     * partitions the spine by one table's bucket of each key and reads every view's files of that
     * bucket, so views whose tables bucket the same key differently (another bucket count, the key
     * declared as a string in one and a long in the other) must not share one: they would read
     * other keys' files and find the entity missing.
     */
    static List<Group> groups(List<PlannedView> views) {
        Map<List<Object>, List<PlannedView>> byBucketing = new LinkedHashMap<>();
        for (PlannedView vp : views) {
            List<Object> bucketing = List.of(vp.entity, vp.table.buckets(), keyType(vp.table));
            byBucketing.computeIfAbsent(bucketing, b -> new ArrayList<>()).add(vp);
        }
        List<Group> passes = new ArrayList<>();
        byBucketing.forEach((b, vs) -> passes.add(new Group(vs.get(0).entity, List.copyOf(vs))));
        return passes;
    }

    /**
     * Checks that the spine has the column of each requested view's entity (views of several
     * entities each read their own); an error names a missing column and the views that need it.
     */
    private void checkEntityColumns(Spine spine) {
        for (Group g : groups) {
            List<String> names = g.views().stream().map(v -> v.view.name()).toList();
            spine.column(
                    g.entity(),
                    (names.size() == 1 ? "the entity of view " : "the entity of views ")
                            + String.join(", ", names));
        }
    }

    /** The spine's column positions of each group's entity, in group order. */
    int[] entityColumns() {
        Schema schema = new Schema.Parser().parse(spineSchema);
        return groups.stream().mapToInt(g -> schema.getField(g.entity()).pos()).toArray();
    }

    /**
     * What each view's table holds whole over the hours the spine's rows can read (each row reads
     * events in {@code [floor_s(t) − W, t)}, W its longest window or the view's ttl, which decides
     * NOT_FOUND), and the files of those hours, from one snapshot per table (the pinned one, or the
     * current one), which address the artifact.
     *
     * @param pins snapshot ids by table name
     */
    private void planHours(SluiceConfig config, Map<String, Long> pins) throws IOException {
        long hour = HourPartitioner.hourMillis();
        Map<String, List<PlannedView>> byTable = new LinkedHashMap<>();
        for (PlannedView vp : views) {
            vp.first = rows == 0 ? 0 : Windows.floor(vp.from(firstTail), hour);
            vp.last = rows == 0 ? 0 : lastEnd;
            byTable.computeIfAbsent(vp.table.name(), t -> new ArrayList<>()).add(vp);
        }
        for (String table : pins.keySet()) {
            if (!byTable.containsKey(table)) {
                throw new IllegalArgumentException(
                        String.format(
                                "--as-of-snapshot: table %s is not read by the requested features"
                                        + " (they read %s)",
                                table, String.join(", ", byTable.keySet())));
            }
        }
        try (LakeCatalog catalog = config.catalog().isEnabled() ? LakeCatalog.open(config) : null) {
            for (List<PlannedView> vs : byTable.values()) {
                TableConfig table = vs.get(0).table;
                long from = vs.stream().mapToLong(v -> v.first).min().orElseThrow();
                long to = vs.stream().mapToLong(v -> v.last).max().orElseThrow();
                Optional<Long> pin = Optional.ofNullable(pins.get(table.name()));
                WarehouseSnapshot snapshot;
                try {
                    snapshot = WarehouseSnapshot.read(catalog, config, table, pin, from, to);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(
                            pin.isPresent()
                                    ? "--as-of-snapshot: " + e.getMessage()
                                    : e.getMessage(),
                            e);
                }
                snapshot.snapshotId().ifPresent(id -> snapshots.put(table.name(), id));
                for (PlannedView vp : vs) {
                    vp.snapshot = snapshot;
                    vp.coverage = CompleteHours.of(config, table, snapshot, vp.first, vp.last);
                }
                snapshot.hours()
                        .forEach(
                                (start, files) -> {
                                    String partition =
                                            table.name() + "/" + HourPartitioner.partition(start);
                                    partitions.add(partition);
                                    manifests.add(partition + " " + ArtifactDigest.sha256(files));
                                });
            }
        }
    }

    private static final int GROUPS_SHOWN = 5;

    /**
     * Why a request that refuses incomplete rows is refused: how many rows, per view and missing
     * hour (the first few spine rows with their entity and time), and why the hour is not whole.
     */
    String refusal(TrainingSetJob.Outcome outcome) {
        List<MissingRows> groups = outcome.incomplete();
        StringBuilder message =
                new StringBuilder(
                        String.format(
                                "%,d of %,d spine rows need events that the warehouse does not"
                                        + " hold whole, so their features would be computed from"
                                        + " part of the data:",
                                outcome.incompleteRows(), outcome.rows()));
        for (MissingRows m : groups.subList(0, Math.min(GROUPS_SHOWN, groups.size()))) {
            PlannedView vp = view(m.view());
            CompleteHours.Coverage c = vp.coverage;
            message.append(
                    String.format(
                            "%n  view %s, table %s: hour %s %s%s; %,d row%s, e.g. ",
                            m.view(),
                            vp.table.name(),
                            HourPartitioner.partition(m.hour()),
                            c.why(m.hour()).text,
                            m.hour() >= c.until() ? " (" + c.describe() + ")" : "",
                            m.rows(),
                            m.rows() == 1 ? "" : "s"));
            List<String> examples = new ArrayList<>();
            for (String[] e : m.examples()) {
                examples.add(
                        String.format(
                                "row %d (%s %s at %s)",
                                Long.parseLong(e[2]) + 1, vp.entity, e[3], e[4]));
            }
            message.append(String.join(", ", examples));
        }
        if (groups.size() > GROUPS_SHOWN) {
            message.append(
                    String.format(
                            "%n  and %d more (view, hour) pairs", groups.size() - GROUPS_SHOWN));
        }
        message.append(
                String.format(
                        "%nWait until those hours are complete and compacted, leave those rows out"
                                + " of the spine, or pass --incomplete mark to keep them with null"
                                + " features of status INCOMPLETE."));
        return message.toString();
    }

    static int bucket(TableConfig table, String key) {
        Object typed =
                switch (keyType(table)) {
                    case INT -> Integer.parseInt(key);
                    case LONG -> Long.parseLong(key);
                    default -> key;
                };
        return HiveBucketing.bucket(typed, table.buckets());
    }

    /** The Avro type of {@code table}'s key, which its Hive bucket hash depends on. */
    private static Schema.Type keyType(TableConfig table) {
        return Nullable.valueType(table.schema().getField(table.key()).schema()).getType();
    }
}
