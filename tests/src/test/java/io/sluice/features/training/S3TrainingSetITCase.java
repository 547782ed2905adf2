package io.sluice.features.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.catalog.IcebergHours;
import io.sluice.catalog.LakeCatalog;
import io.sluice.compact.HourCompactor;
import io.sluice.compact.testing.CompactedHours;
import io.sluice.config.CatalogConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.StorageConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
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
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LakeFiles;
import io.sluice.testing.DuckDb;
import io.sluice.testing.TestClusters;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training-set builder with the lake on a real S3 server (S3Proxy in this JVM, objects kept as
 * plain files), next to a {@code file:} lake holding the same landing hours, each compacted where
 * it lies: the two give the same training set, row for row, and it is the point-in-time
 * definition's. On S3 the artifact is published by its manifest, written last (no rename): a build
 * that dies before it publishes nothing, and what it left goes once abandoned.
 */
class S3TrainingSetITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = TestClusters.flink();

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    private static final Instant START = Instant.parse("2026-11-22T00:00:00Z");

    @TempDir static Path local;

    static SluiceConfig onFile;
    static SluiceConfig onS3;
    static FeatureViewConfig view;
    static TableConfig table;
    static Map<String, List<EventEntry>> events;
    static List<String> entities;

    /** The end of the last complete, compacted hour: the same on both lakes. */
    static Instant covered;

    @BeforeAll
    static void landAndCompactOnBothLakes() throws IOException {
        // Both without a catalog: the same manifests, so the same address (the catalog's part is
        // in shouldBuildAgainAsOfTheSnapshotItReadAfterLateDataChangedAnHour).
        onFile = TestConfigs.shop(local, "localhost:9", "ts3").withCatalog(CatalogConfig.NONE);
        StorageConfig storage = S3.newLake();
        LakeFileSystem.initialize(storage, S3.server().env());
        onS3 = TestConfigs.onStorage(onFile, storage);
        view = onFile.featureView("user_purchases").orElseThrow();
        table = onFile.table(view.source()).orElseThrow();
        GeneratorOptions options =
                GeneratorOptions.defaults(2_000, 41).withStart(START).withSpan(Duration.ofHours(2));
        LandingHours.write(local, table, options, 2, true);
        // The raw hours as landed, uploaded; each lake compacts its own.
        uploadRaw(local, storage.rootUri());
        List<String> pending = CompactedHours.compactAll(onFile, table);
        assertThat(pending).hasSizeGreaterThanOrEqualTo(2);
        assertThat(compactAll(HourCompactor.builder(table, storage.rootUri()).build()))
                .isEqualTo(pending);
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(List.of(table), options).run(generated::add);
        events = Expected.events(view, table, generated);
        entities = new ArrayList<>(new TreeSet<>(events.keySet()));
        covered = new TrainingSetBuilder(onFile, 1).coveredUntil(table).orElseThrow();
        assertThat(new TrainingSetBuilder(onS3, 1).coveredUntil(table)).contains(covered);
    }

    @Test
    void shouldBuildOnS3TheTrainingSetOfAFileLakeAndReuseIt() throws IOException {
        TrainingSetRequest request = request(spine("same.parquet", 1, 400));
        TrainingSetResult file = new TrainingSetBuilder(onFile, 2).build(request);
        TrainingSetResult s3 = new TrainingSetBuilder(onS3, 2).build(request);
        // The same warehouse manifests, byte for byte, so the same address.
        assertThat(s3.digest()).isEqualTo(file.digest());
        assertThat(s3.reused()).isFalse();
        assertThat(s3.rows()).isEqualTo(file.rows()).isEqualTo(400);
        assertThat(s3.partitions()).isEqualTo(file.partitions()).isNotEmpty();
        assertThat(s3.statuses()).isEqualTo(file.statuses());
        // The same bucket files, read from the bucket.
        assertThat(s3.filesRead())
                .isNotEmpty()
                .allSatisfy(f -> assertThat(f.toString()).startsWith(lake("warehouse") + "/"));
        assertThat(s3.filesRead().stream().map(ArtifactStore::name).toList())
                .isEqualTo(file.filesRead().stream().map(ArtifactStore::name).toList());
        // Its parts stand in a prefix of the build's own under the digest, beside the manifest.
        assertThat(s3.data().toString())
                .startsWith(lake("training_sets/" + s3.digest() + "/data") + "/");
        assertThat(s3.parts()).isNotEmpty();
        assertThat(onDisk(lake("training_sets/" + s3.digest() + "/_SUCCESS"))).isRegularFile();
        for (URI part : s3.parts()) {
            assertThat(onDisk(part.toString())).isRegularFile();
        }

        Path fromFile = export(file, "file-lake.parquet");
        Path fromS3 = export(s3, "s3-lake.parquet");
        assertSameRows(fromS3, fromFile);
        assertDefinition(fromS3, 400);
        Path dir = local.resolve("s3-lake-parts");
        s3.export(dir, true);
        try (Stream<Path> parts = Files.list(dir)) {
            assertThat(parts.map(p -> p.getFileName().toString()).sorted().toList())
                    .isEqualTo(s3.parts().stream().map(ArtifactStore::name).toList());
        }
        assertSameRows(dir.resolve("*.parquet"), fromFile);

        TrainingSetResult again = new TrainingSetBuilder(onS3, 2).build(request);
        assertThat(again.reused()).isTrue();
        assertThat(again.filesRead()).isEmpty();
        assertThat(again.digest()).isEqualTo(s3.digest());
        assertThat(again.data()).isEqualTo(s3.data());
        assertThat(again.parts()).isEqualTo(s3.parts());
        assertThat(again.rows()).isEqualTo(400);
        assertThat(Files.mismatch(export(again, "s3-lake-again.parquet"), fromS3)).isEqualTo(-1);
    }

    @Test
    void shouldPublishNothingWhenABuildDiesBeforeItsManifestAndBuildItWhenRunAgain(
            @InjectClusterClient ClusterClient<?> flink) throws Exception {
        TrainingSetRequest request = request(spine("crashed.parquet", 2, 300));
        String digest = ArtifactDigest.of(request, TrainingPlan.of(onS3, request));
        ArtifactStore store = new ArtifactStore(new TrainingSetBuilder(onS3, 1).artifacts());
        // The process dies once its job has written every part, before the manifest: an Error
        // from the last progress report (the job has ended) skips every clean-up path.
        TrainingSetBuilder dying =
                new TrainingSetBuilder(onS3, 2)
                        .withProgress(
                                (done, total) -> {
                                    if (done == total && allJobsEnded(flink)) {
                                        throw new SimulatedCrash();
                                    }
                                });
        assertThatThrownBy(() -> dying.build(request)).isInstanceOf(SimulatedCrash.class);
        assertThat(store.find(digest)).isEmpty();
        String artifact = "training_sets/" + digest;
        List<String> crashed = objects(artifact);
        assertThat(crashed)
                .as("its parts, under a prefix of its own, and no manifest")
                .isNotEmpty()
                .allSatisfy(o -> assertThat(o).matches("data/[0-9a-f-]{36}/part-\\d{5}\\.parquet"));
        String prefix = crashed.get(0).substring(0, crashed.get(0).lastIndexOf('/'));
        assertThat(markers())
                .as("its marker names its digest and its prefix")
                .anySatisfy(
                        m ->
                                assertThat(Files.readString(onDisk(lake("training_sets/" + m))))
                                        .contains(digest)
                                        .contains(prefix));

        TrainingSetResult built = new TrainingSetBuilder(onS3, 2).build(request);
        assertThat(built.reused()).isFalse();
        assertThat(built.digest()).isEqualTo(digest);
        assertThat(built.rows()).isEqualTo(300);
        List<String> published = new ArrayList<>(List.of("_SUCCESS"));
        built.parts()
                .forEach(p -> published.add(p.toString().substring(lake(artifact).length() + 1)));
        assertThat(published).doesNotContainAnyElementsOf(crashed);
        assertThat(objects(artifact))
                .as("the crashed build's parts wait, a day, in case it is still running")
                .containsExactlyInAnyOrderElementsOf(concat(crashed, published));
        Path fromS3 = export(built, "rerun.parquet");
        assertSameRows(
                fromS3,
                export(new TrainingSetBuilder(onFile, 2).build(request), "rerun-file.parquet"));
        assertDefinition(fromS3, 300);

        store.removeAbandoned(Duration.ofHours(1));
        assertThat(objects(artifact))
                .containsExactlyInAnyOrderElementsOf(concat(crashed, published));
        store.removeAbandoned(Duration.ZERO);
        // The crashed build's parts and every marker are gone; the published build keeps its parts.
        assertThat(objects(artifact)).containsExactlyInAnyOrderElementsOf(published);
        assertThat(markers()).isEmpty();
        TrainingSetResult reused = new TrainingSetBuilder(onS3, 1).build(request);
        assertThat(reused.reused()).isTrue();
        assertThat(Files.mismatch(export(reused, "reused.parquet"), fromS3)).isEqualTo(-1);
    }

    /**
     * With a catalog, a build reads one Iceberg snapshot of the table and names it in its result,
     * digest and manifest. Late data then lands in an hour it read and the hour is compacted again:
     * a build of the same request now reads the new snapshot and gives other values, and a build as
     * of the first snapshot computes the first build's rows again, under its digest (on S3 the
     * superseded objects stay while their tombstone's grace lasts).
     */
    @Test
    void shouldBuildAgainAsOfTheSnapshotItReadAfterLateDataChangedAnHour() throws IOException {
        StorageConfig storage = S3.newLake();
        LakeFileSystem.initialize(storage, S3.server().env());
        SluiceConfig lake =
                TestConfigs.onStorage(onFile, storage)
                        .withCatalog(CatalogConfig.sqlite(local.resolve("pinned/catalog.db")));
        uploadRaw(local, storage.rootUri());
        List<String> hours;
        try (LakeCatalog catalog = LakeCatalog.open(lake)) {
            HourCompactor compactor =
                    HourCompactor.builder(table, storage.rootUri())
                            .memoryBudget(64L << 20)
                            .iceberg(new IcebergHours(catalog.table(table), table))
                            .build();
            hours = compactAll(compactor);
            TrainingSetRequest request = request(spine("pinned.parquet", 3, 300));
            TrainingSetResult first = new TrainingSetBuilder(lake, 2).build(request);
            long read = first.snapshots().get(table.name());
            assertThat(first.snapshots()).containsOnlyKeys(table.name());
            assertThat(read).isEqualTo(catalog.table(table).currentSnapshot().snapshotId());
            assertThat(
                            new ObjectMapper()
                                    .readTree(
                                            LakeFiles.read(
                                                    LakeFiles.resolve(
                                                            storage.rootUri(),
                                                            "training_sets/"
                                                                    + first.digest()
                                                                    + "/_SUCCESS")))
                                    .path("snapshots")
                                    .path(table.name())
                                    .asLong())
                    .as("the manifest names the snapshot read")
                    .isEqualTo(read);
            Path firstRows = export(first, "pinned-first.parquet");

            // Late events of the first hour: another generator's, landed as one more file, and
            // the hour's manifest written again.
            Path late = local.resolve("late");
            LandingHours.write(
                    late,
                    table,
                    GeneratorOptions.defaults(600, 97)
                            .withStart(START)
                            .withSpan(Duration.ofMinutes(50)),
                    1,
                    false);
            String hour = HourPartitioner.partition(START.toEpochMilli());
            assertThat(hours).contains(hour);
            URI hourDir = LakeFiles.resolve(storage.rootUri(), "raw/" + table.name() + "/" + hour);
            LakeFiles.write(
                    LakeFiles.resolve(hourDir, "part-late.avro"),
                    Files.readAllBytes(
                            late.resolve("raw/" + table.name() + "/" + hour + "/part-0.avro")));
            long hourStart = HourPartitioner.parse(hour);
            HourManifest.write(
                    new org.apache.flink.core.fs.Path(hourDir),
                    table.name(),
                    table.schema(),
                    hourStart,
                    hourStart + HourPartitioner.hourMillis() + table.allowedLateness().toMillis(),
                    table.allowedLateness(),
                    1);
            assertThat(compactAll(compactor)).containsExactly(hour);
            long now = catalog.table(table).currentSnapshot().snapshotId();
            assertThat(now).isNotEqualTo(read);

            TrainingSetResult current = new TrainingSetBuilder(lake, 2).build(request);
            assertThat(current.snapshots()).containsEntry(table.name(), now);
            assertThat(current.digest()).isNotEqualTo(first.digest());
            assertThat(rows(export(current, "pinned-now.parquet"))).isNotEqualTo(rows(firstRows));

            TrainingSetRequest asOf = request.asOf(Map.of(table.name(), read));
            TrainingSetResult again = new TrainingSetBuilder(lake, 2).build(asOf, false);
            assertThat(again.reused()).isFalse();
            assertThat(again.snapshots()).containsEntry(table.name(), read);
            assertThat(again.digest()).isEqualTo(first.digest());
            assertThat(again.filesRead()).isNotEmpty();
            assertThat(rows(export(again, "pinned-again.parquet"))).isEqualTo(rows(firstRows));
            assertThat(new TrainingSetBuilder(lake, 1).build(asOf).reused()).isTrue();

            assertThatThrownBy(
                            () ->
                                    new TrainingSetBuilder(lake, 1)
                                            .build(request.asOf(Map.of(table.name(), 42L))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--as-of-snapshot: table")
                    .hasMessageContaining("has no snapshot 42")
                    .hasMessageContaining("current one is " + now);
            assertThatThrownBy(
                            () ->
                                    new TrainingSetBuilder(lake, 1)
                                            .build(request.asOf(Map.of("orders", read))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "--as-of-snapshot: table orders is not read by the requested features"
                                    + " (they read "
                                    + table.name()
                                    + ")");
        }
    }

    /** Compacts every pending hour; returns them. */
    private static List<String> compactAll(HourCompactor compactor) throws IOException {
        List<String> pending = compactor.pending(Optional.empty(), Optional.empty(), false);
        for (String hour : pending) {
            assertThat(compactor.compact(hour, false).outcome())
                    .isEqualTo(HourCompactor.Outcome.COMPACTED);
        }
        return pending;
    }

    /** Uploads the landing hours under {@code dir/raw} to the same paths under {@code root}. */
    private static void uploadRaw(Path dir, URI root) throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("raw"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                LakeFiles.write(
                        LakeFiles.resolve(root, dir.relativize(f).toString()),
                        Files.readAllBytes(f));
            }
        }
    }

    /** A Parquet file's rows, in order. */
    private static List<Map<String, Object>> rows(Path file) {
        try (DuckDb duck = new DuckDb()) {
            return duck.rows("select * from read_parquet('" + file + "')");
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** The staging markers of builds in the lake's artifacts. */
    private static List<String> markers() throws IOException {
        return objects("training_sets").stream()
                .filter(o -> o.startsWith(ArtifactStore.STAGING + "."))
                .toList();
    }

    /** Thrown from inside the builder, like a process dying there. */
    private static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static boolean allJobsEnded(ClusterClient<?> flink) {
        try {
            return flink.listJobs().get().stream()
                    .map(JobStatusMessage::getJobState)
                    .allMatch(JobStatus::isGloballyTerminalState);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static TrainingSetRequest request(Path spine) {
        return new TrainingSetRequest(
                spine,
                view.features().stream().map(f -> new FeatureRef(view.name(), f.name())).toList(),
                TrainingSetBuilder.TIMESTAMP_COLUMN,
                Optional.empty(),
                true,
                TrainingSetRequest.Incomplete.MARK);
    }

    /**
     * A local Parquet spine of (user_id, event_timestamp as timestamp-micros, label) rows, at times
     * from an hour before {@link #START} to an hour after {@link #covered}; a quarter exactly at
     * one of the entity's events, and some of an unknown entity.
     */
    private static Path spine(String name, long seed, int rows) throws IOException {
        Schema schema = SpineSchemas.userLabel("timestamp-micros");
        long from = START.minusSeconds(3600).toEpochMilli();
        long span = covered.plusSeconds(3600).toEpochMilli() - from;
        SplittableRandom random = new SplittableRandom(seed);
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            String entity = i % 40 == 0 ? "nobody" : entities.get(random.nextInt(entities.size()));
            List<EventEntry> own = events.getOrDefault(entity, List.of());
            long t =
                    i % 4 == 0 && !own.isEmpty()
                            ? own.get(random.nextInt(own.size())).ts() * 1000
                            : (from + random.nextLong(span)) * 1000 + random.nextInt(1000);
            GenericData.Record r = new GenericData.Record(schema);
            r.put("user_id", entity);
            r.put("event_timestamp", t);
            r.put("label", i);
            records.add(r);
        }
        return ParquetFiles.write(local.resolve(name), schema, records);
    }

    private static Path export(TrainingSetResult result, String name) throws IOException {
        Path out = local.resolve(name);
        result.export(out, false);
        return out;
    }

    /** The two Parquet files (or globs) hold the same rows in the same order. */
    private static void assertSameRows(Path actual, Path expected) {
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> want =
                    duck.rows("select * from read_parquet('" + expected + "')");
            assertThat(want).isNotEmpty();
            assertThat(duck.rows("select * from read_parquet('" + actual + "')")).isEqualTo(want);
        }
    }

    /**
     * Every row of the training set in {@code file} is its spine row, in order, with each feature
     * the definition's value at its exact time over the generator's accepted events; a row later
     * than the warehouse covers is INCOMPLETE.
     */
    private static void assertDefinition(Path file, int rows) {
        ViewDef def = ViewDef.of(view, table);
        long ok = 0;
        long incomplete = 0;
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> got =
                    duck.rows(
                            "select *, epoch_us(event_timestamp) as t_us from read_parquet('"
                                    + file
                                    + "')");
            assertThat(got).hasSize(rows);
            for (int i = 0; i < rows; i++) {
                Map<String, Object> row = got.get(i);
                assertThat(row.get("label")).isEqualTo(i);
                String entity = (String) row.get("user_id");
                long t = ((Number) row.get("t_us")).longValue() * 1_000;
                boolean past = t > Definition.nanos(covered.toEpochMilli());
                incomplete += past ? 1 : 0;
                for (var f : view.features()) {
                    FeatureValue want =
                            past
                                    ? new FeatureValue(null, Status.INCOMPLETE, -1)
                                    : Definition.valueAtNanos(
                                            def,
                                            def.feature(f.name()),
                                            t,
                                            events.getOrDefault(entity, List.of()));
                    String column = view.name() + "__" + f.name();
                    SameValue.assertCell(column + " of " + entity + " row " + i, want, row, column);
                    ok += want.status() == Status.OK ? 1 : 0;
                }
            }
        }
        assertThat(ok).isGreaterThan(rows);
        assertThat(incomplete).isPositive();
    }

    /** {@code <lake>/<relative>} as a string. */
    private static String lake(String relative) {
        return LakeFiles.resolve(onS3.rootUri(), relative).toString();
    }

    /** The plain file S3Proxy keeps an object of the lake's bucket in. */
    private static Path onDisk(String s3Uri) {
        return S3.server().objectFile(URI.create(s3Uri).getPath().substring(1));
    }

    /** Every object under {@code <lake>/<relative>/}, by name relative to it, sorted. */
    private static List<String> objects(String relative) throws IOException {
        Path dir = onDisk(lake(relative));
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .map(f -> dir.relativize(f).toString())
                    .filter(n -> !n.startsWith(".") && !n.contains("/."))
                    .sorted()
                    .toList();
        }
    }
}
