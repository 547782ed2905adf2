package io.sluice.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseSchema;
import io.sluice.schemas.Schemas;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IcebergHoursTest {

    private static final Instant HOUR_5 = Instant.parse("2026-03-01T05:00:00Z");
    private static final Instant HOUR_6 = Instant.parse("2026-03-01T06:00:00Z");

    @TempDir Path root;

    private SluiceConfig config;
    private TableConfig purchases;
    private LakeCatalog catalog;

    @BeforeEach
    void open() throws IOException {
        String yaml =
                """
                kafka: { bootstrap: localhost:9092 }
                storage: { root: file:./lake }
                tables:
                  - { name: purchases, topic: shop.purchases, schema: Purchase,
                      event_time: event_time, key: user_id, id: event_id, buckets: 4 }
                """;
        config =
                SluiceConfig.parse(
                        yaml, "sluice.yaml", root, name -> Schemas.current(name).orElse(null));
        purchases = config.tables().get(0);
        catalog = LakeCatalog.open(config);
    }

    @AfterEach
    void close() throws IOException {
        catalog.close();
    }

    @Test
    void shouldAddTheColumnsANewerSchemaAddsKeepingTheOldOnesIdsAndTheNameMapping()
            throws IOException {
        Table before = catalog.table(purchases);
        int userId = before.schema().findField("user_id").fieldId();
        // Opened again with the schema it was made with, nothing is committed.
        assertThat(metadataFile(catalog.table(purchases))).isEqualTo(metadataFile(before));
        // The table's next schema version: a nullable field added with a default.
        org.apache.avro.Schema current = Schemas.current("Purchase").orElseThrow();
        List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
        for (org.apache.avro.Schema.Field f : current.getFields()) {
            fields.add(new org.apache.avro.Schema.Field(f, f.schema()));
        }
        fields.add(
                new org.apache.avro.Schema.Field(
                        "gift_wrap",
                        org.apache.avro.Schema.createUnion(
                                org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL),
                                org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING)),
                        "added later",
                        org.apache.avro.Schema.Field.NULL_DEFAULT_VALUE));
        org.apache.avro.Schema next =
                org.apache.avro.Schema.createRecord(
                        current.getName(), current.getDoc(), current.getNamespace(), false, fields);
        SluiceConfig evolved =
                SluiceConfig.parse(
                        """
                        kafka: { bootstrap: localhost:9092 }
                        storage: { root: file:./lake }
                        tables:
                          - { name: purchases, topic: shop.purchases, schema: Purchase,
                              event_time: event_time, key: user_id, id: event_id, buckets: 4 }
                        """,
                        "sluice.yaml",
                        root,
                        name -> next);

        Table after = catalog.table(evolved.tables().get(0));

        Types.NestedField added = after.schema().findField("gift_wrap");
        assertThat(added).as("the new column").isNotNull();
        assertThat(added.isOptional()).isTrue();
        assertThat(after.schema().findField("user_id").fieldId()).isEqualTo(userId);
        assertThat(after.properties().get(TableProperties.DEFAULT_NAME_MAPPING))
                .contains("\"gift_wrap\"");
        // Opened again with that schema, nothing changes.
        long schemaId = after.schema().schemaId();
        assertThat(catalog.table(evolved.tables().get(0)).schema().schemaId()).isEqualTo(schemaId);
    }

    @Test
    void shouldCreateAHourPartitionedSortedV2TableOverTheWarehouseColumns() {
        Table table = catalog.table(purchases);

        assertThat(root.resolve("lake/catalog.db")).isRegularFile();
        assertThat(table.location()).endsWith("/lake/warehouse/_iceberg/purchases");
        assertThat(table.properties())
                .containsEntry("bucketing_version", "2")
                .containsEntry(IcebergTableSpec.BUCKET_COLUMN, "user_id")
                .containsEntry(IcebergTableSpec.BUCKET_COUNT, "4")
                .containsKey(TableProperties.DEFAULT_NAME_MAPPING);
        assertThat(((HasTableOperations) table).operations().current().formatVersion())
                .isEqualTo(2);
        assertThat(table.spec().fields()).hasSize(1);
        assertThat(table.spec().fields().get(0).transform().toString()).isEqualTo("hour");
        assertThat(table.sortOrder().fields())
                .extracting(f -> table.schema().findColumnName(f.sourceId()))
                .containsExactly("user_id", "event_time", "event_id");
        assertThat(table.schema().findType("event_time")).isEqualTo(Types.TimestampType.withZone());
        assertThat(table.schema().findType("price")).isEqualTo(Types.FloatType.get());
        assertThat(table.schema().findType("device")).isEqualTo(Types.StringType.get());
        assertThat(table.schema().findField("coupon").isOptional()).isTrue();
        assertThat(table.schema().findField("user_id").isRequired()).isTrue();
        // A second open finds the same table.
        assertThat(catalog.table(purchases).uuid()).isEqualTo(table.uuid());
    }

    @Test
    void shouldCommitAnHourOnceAndReadItsRowsByName() throws IOException {
        IcebergHours hours = new IcebergHours(catalog.table(purchases), purchases);
        List<IcebergHours.HourFile> files =
                List.of(
                        file(hours, HOUR_5, "000000_0_a.parquet", "u1", "u2"),
                        file(hours, HOUR_5, "000001_0_b.parquet", "u3"));

        Optional<Long> first = hours.commit(partition(HOUR_5), "digest-1", files);
        Optional<Long> again = hours.commit(partition(HOUR_5), "digest-1", files);

        assertThat(first).isPresent();
        assertThat(again).isEmpty();
        Table table = hours.table();
        table.refresh();
        assertThat(table.snapshots()).hasSize(1);
        assertThat(table.currentSnapshot().summary())
                .containsEntry(IcebergHours.LANDING_DIGEST, "digest-1")
                .containsEntry(IcebergHours.PARTITION, "dt=2026-03-01/hr=05");
        assertThat(users(table)).containsExactlyInAnyOrder("u1", "u2", "u3");
        // The key's bounds are in the metrics: a lookup plans only the file that can hold it.
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().filter(Expressions.equal("user_id", "u3")).planFiles()) {
            assertThat(tasks)
                    .extracting(t -> t.file().location())
                    .singleElement()
                    .asString()
                    .endsWith("000001_0_b.parquet");
        }
    }

    @Test
    void shouldReplaceExactlyTheHoursFiles() throws IOException {
        IcebergHours hours = new IcebergHours(catalog.table(purchases), purchases);
        IcebergHours.HourFile kept = file(hours, HOUR_5, "000000_0_a.parquet", "u1");
        hours.commit(
                partition(HOUR_5),
                "d5",
                List.of(kept, file(hours, HOUR_5, "000001_0_b.parquet", "u2")));
        hours.commit(
                partition(HOUR_6), "d6", List.of(file(hours, HOUR_6, "000000_0_c.parquet", "u9")));
        long beforeLateData = hours.table().currentSnapshot().snapshotId();

        hours.commit(
                partition(HOUR_5),
                "d5-late",
                List.of(kept, file(hours, HOUR_5, "000001_0_d.parquet", "u2", "u4")));

        Table table = hours.table();
        assertThat(hours.filesOf(partition(HOUR_5)).keySet())
                .extracting(l -> l.substring(l.lastIndexOf('/') + 1))
                .containsExactlyInAnyOrder("000000_0_a.parquet", "000001_0_d.parquet");
        assertThat(hours.filesOf(partition(HOUR_6))).hasSize(1);
        assertThat(users(table)).containsExactlyInAnyOrder("u1", "u2", "u4", "u9");
        // The snapshot before the late data still reads as it was.
        assertThat(usersAt(table, beforeLateData)).containsExactlyInAnyOrder("u1", "u2", "u9");
        Snapshot late = table.currentSnapshot();
        assertThat(late.summary())
                .containsEntry(IcebergHours.LANDING_DIGEST, "d5-late")
                .containsEntry("deleted-data-files", "1")
                .containsEntry("added-data-files", "1");
    }

    @Test
    void shouldKeepEveryHourWhenHoursCommitConcurrently() throws Exception {
        Table shared = catalog.table(purchases);
        List<Callable<Void>> commits = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int h = 0; h < 8; h++) {
            Instant hour = HOUR_5.plusSeconds(3600L * h);
            String user = "u" + h;
            expected.add(user);
            // Each thread has its own view of the table, as each compact subtask does.
            IcebergHours hours =
                    new IcebergHours(
                            catalog.catalog().loadTable(catalog.identifier("purchases")),
                            purchases);
            IcebergHours.HourFile f = file(hours, hour, "000000_0_" + h + ".parquet", user);
            commits.add(
                    () -> {
                        hours.commit(partition(hour), "d" + user, List.of(f));
                        return null;
                    });
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (Future<Void> done : pool.invokeAll(commits)) {
                done.get();
            }
        } finally {
            pool.shutdownNow();
        }

        shared.refresh();
        assertThat(users(shared)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(shared.snapshots()).hasSize(8);
    }

    @Test
    void shouldLeaveThePreviousSnapshotWhenTheHourWasNeverCommitted() throws IOException {
        IcebergHours hours = new IcebergHours(catalog.table(purchases), purchases);
        hours.commit(
                partition(HOUR_5), "d1", List.of(file(hours, HOUR_5, "000000_0_a.parquet", "u1")));
        long before = hours.table().currentSnapshot().snapshotId();
        // A crash after the files were written and published, before the commit:
        IcebergHours.HourFile written = file(hours, HOUR_5, "000000_0_b.parquet", "u1", "u2");

        Table reopened = catalog.catalog().loadTable(catalog.identifier("purchases"));
        assertThat(reopened.currentSnapshot().snapshotId()).isEqualTo(before);
        assertThat(users(reopened)).containsExactly("u1");

        // The next run catches the table up.
        IcebergHours rerun = new IcebergHours(reopened, purchases);
        assertThat(rerun.commit(partition(HOUR_5), "d2", List.of(written))).isPresent();
        assertThat(users(rerun.table())).containsExactlyInAnyOrder("u1", "u2");
    }

    @Test
    void shouldGiveTwoSubtasksCreatingTheTableAtOnceTheSameTable() throws Exception {
        catalog.close();
        java.nio.file.Files.deleteIfExists(root.resolve("lake/catalog.db"));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Callable<String>> opens = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            opens.add(
                    () -> {
                        try (LakeCatalog own = LakeCatalog.open(config)) {
                            return own.table(purchases).uuid().toString();
                        }
                    });
        }
        List<String> uuids = new ArrayList<>();
        try {
            for (Future<String> opened : pool.invokeAll(opens)) {
                uuids.add(opened.get());
            }
        } finally {
            pool.shutdownNow();
        }
        catalog = LakeCatalog.open(config);

        assertThat(uuids).hasSize(2).containsOnly(catalog.table(purchases).uuid().toString());
    }

    @Test
    void shouldExpireSnapshotsOlderThanTheRetentionAndKeepTheRows() throws IOException {
        Table table = commitHours(3);
        long newest = table.currentSnapshot().timestampMillis();

        // A retention reaching back past every snapshot expires none.
        assertThat(expire(java.time.Duration.ofDays(1), newest)).containsEntry("purchases", 0);
        assertThat(expire(java.time.Duration.ZERO, newest + 1)).containsEntry("purchases", 2);

        table.refresh();
        assertThat(table.snapshots()).hasSize(1);
        assertThat(users(table)).containsExactlyInAnyOrder("u0", "u1", "u2");
    }

    @Test
    void shouldRemoveOnlyOldMetadataFilesThatNothingReferences() throws IOException {
        Table table = commitHours(2);
        Path metadata = Path.of(URI.create(table.location() + "/metadata"));
        Set<String> before = names(metadata);
        // What a commit that died before the catalog named it leaves: a manifest and a list.
        Files.writeString(metadata.resolve("0a1b2c3d-lost-m0.avro"), "orphan");
        Files.writeString(metadata.resolve("snap-42-1-0a1b2c3d-lost.avro"), "orphan");
        long now = System.currentTimeMillis();

        // Younger than the retention, or than the floor whatever the retention: kept.
        assertThat(removeOrphans(java.time.Duration.ofDays(1), now + 3_600_000L))
                .containsEntry("purchases", 0);
        assertThat(removeOrphans(java.time.Duration.ZERO, now + 60_000L))
                .containsEntry("purchases", 0);
        assertThat(names(metadata)).hasSize(before.size() + 2);

        assertThat(removeOrphans(java.time.Duration.ofDays(1), now + 2 * 86_400_000L))
                .containsEntry("purchases", 2);
        assertThat(names(metadata)).isEqualTo(before);
        table.refresh();
        assertThat(users(table)).containsExactlyInAnyOrder("u0", "u1");
        assertThat(catalog.catalog().loadTable(catalog.identifier("purchases")).snapshots())
                .hasSize(2);
    }

    /** Commits {@code n} hours from HOUR_5 on, one file of one user ({@code u<h>}) each. */
    private Table commitHours(int n) throws IOException {
        IcebergHours hours = new IcebergHours(catalog.table(purchases), purchases);
        for (int h = 0; h < n; h++) {
            Instant hour = HOUR_5.plusSeconds(3600L * h);
            hours.commit(
                    partition(hour),
                    "d" + h,
                    List.of(file(hours, hour, "000000_0_" + h + ".parquet", "u" + h)));
        }
        return hours.table();
    }

    private Map<String, Integer> removeOrphans(java.time.Duration retention, long now)
            throws IOException {
        return Map.of(
                "purchases",
                Maintenance.removeOrphanFiles(catalog.table(purchases), retention, now));
    }

    private Map<String, Integer> expire(java.time.Duration retention, long now) {
        return Map.of(
                "purchases", Maintenance.expireSnapshots(catalog.table(purchases), retention, now));
    }

    private static Set<String> names(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    private static String partition(Instant hour) {
        return HourPartitioner.partition(hour.toEpochMilli());
    }

    /** Writes a warehouse Parquet file of the hour with one row per user, in the Hive layout. */
    private IcebergHours.HourFile file(
            IcebergHours hours, Instant hour, String name, String... users) throws IOException {
        Path dir = root.resolve("lake/warehouse/purchases").resolve(partition(hour));
        Files.createDirectories(dir);
        Path path = dir.resolve(name);
        WarehouseSchema schema = WarehouseSchema.of(purchases.schema());
        try (ParquetWriter<GenericRecord> writer =
                AvroParquetWriter.<GenericRecord>builder(
                                HadoopOutputFile.fromPath(
                                        new org.apache.hadoop.fs.Path(path.toUri()),
                                        new org.apache.hadoop.conf.Configuration()))
                        .withSchema(schema.schema())
                        .build()) {
            int i = 0;
            for (String user : users) {
                GenericData.Record r = new GenericData.Record(schema.schema());
                r.put("event_id", name + "-" + i);
                r.put("event_time", (hour.toEpochMilli() + 1000L * i++) * 1000L);
                r.put("user_id", user);
                r.put("session_id", "s");
                r.put("order_id", "o");
                r.put("item_id", "i");
                r.put("category", "c");
                r.put("price", 1.5f);
                r.put("quantity", 1);
                r.put("payment_method", "card");
                r.put("device", "WEB");
                r.put("country", "DE");
                writer.write(r);
            }
        }
        return new IcebergHours.HourFile(
                path.toUri().toString(), Files.size(path), hours.metrics(path));
    }

    private static List<String> users(Table table) throws IOException {
        table.refresh();
        return read(IcebergGenerics.read(table).select("user_id").build());
    }

    private static List<String> usersAt(Table table, long snapshotId) throws IOException {
        return read(IcebergGenerics.read(table).useSnapshot(snapshotId).select("user_id").build());
    }

    private static List<String> read(CloseableIterable<Record> records) throws IOException {
        List<String> users = new ArrayList<>();
        try (records) {
            records.forEach(r -> users.add(r.getField("user_id").toString()));
        }
        return users;
    }

    private static String metadataFile(Table table) {
        return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }
}
