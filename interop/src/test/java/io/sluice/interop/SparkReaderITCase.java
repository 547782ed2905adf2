package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sluice.testing.ChildJava;
import io.sluice.testing.ReadmeBlocks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.RelationalGroupedDataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalog.Table;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark, which shares no code with Sluice, reads a small {@code ./sluice demo}'s output: every
 * column of the warehouse and the feature log has the Spark type the README's types table gives,
 * the tables {@code sluice ddl --dialect spark} prints count every warehouse row, and the README's
 * Spark examples (the block after {@code <!-- checked: spark -->}) return rows. The demo and {@code
 * sluice ddl} run through the {@code ./sluice} launcher, in their own JVMs, from the app module's
 * package output; Parquet footers are read with the parquet-java that Spark brings.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkReaderITCase {

    private static final Path HOME = ReadmeBlocks.readme().getParent();

    private static final String TYPES = "Types as each reader sees them";

    @TempDir static Path tmp;

    /** The demo's data directory, the README's {@code DIR}. */
    private static Path dir;

    private static CompletableFuture<SparkSession> session;

    /** The object store of the time-travel test, and the lake's prefix in its bucket. */
    private static ObjectStore store;

    private static final String S3_LAKE = "lake";

    /** Where the time-travel test keeps its copy of the demo's landing hours of purchases. */
    private static final String S3_RAW = "s3-raw/purchases";

    private static SparkSession spark;

    /** Each data file's Parquet schema and row count, from its footer. */
    private static final Map<Path, Footer> footers = new TreeMap<>();

    private record Footer(MessageType schema, long rows) {}

    /** One set of read options: the default builds a Hadoop configuration for every file. */
    private static final ParquetReadOptions FOOTER_OPTIONS =
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build();

    private static final Map<List<String>, Run> runs = new ConcurrentHashMap<>();

    @BeforeAll
    static void demoAndSpark() throws Exception {
        // The launcher builds the app itself when these are missing; in a test that would be a
        // nested Maven build, so they must come from the reactor's package phase.
        for (String built : List.of("sluice.jar", "lib", "plugins")) {
            assertThat(HOME.resolve("app/target").resolve(built))
                    .as("the app module's package output")
                    .exists();
        }
        store = ObjectStore.start(tmp.resolve("s3"), HOME.resolve("app/target"));
        // Spark starts while the demo runs: both take seconds, much of the demo's spent waiting.
        session =
                CompletableFuture.supplyAsync(
                        () ->
                                SparkSession.builder()
                                        .master("local[2]")
                                        .appName("sluice-interop")
                                        .config("spark.ui.enabled", "false")
                                        .config("spark.sql.shuffle.partitions", "2")
                                        .config("spark.driver.host", "127.0.0.1")
                                        .config("spark.driver.bindAddress", "127.0.0.1")
                                        // The demo's Iceberg catalog, as the README configures
                                        // it (the demo writes the database in a moment).
                                        .config(
                                                "spark.sql.catalog.sluice",
                                                "org.apache.iceberg.spark.SparkCatalog")
                                        .config(
                                                "spark.sql.catalog.sluice.catalog-impl",
                                                "org.apache.iceberg.jdbc.JdbcCatalog")
                                        .config(
                                                "spark.sql.catalog.sluice.uri",
                                                "jdbc:sqlite:" + tmp.resolve("data/catalog.db"))
                                        .config(
                                                "spark.sql.catalog.sluice.warehouse",
                                                tmp.resolve("data/warehouse/_iceberg")
                                                        .toUri()
                                                        .toString())
                                        // The time-travel test's lake on S3: its own catalog,
                                        // the files through Iceberg's S3FileIO.
                                        .config(
                                                "spark.sql.catalog.s3lake",
                                                "org.apache.iceberg.spark.SparkCatalog")
                                        .config(
                                                "spark.sql.catalog.s3lake.catalog-impl",
                                                "org.apache.iceberg.jdbc.JdbcCatalog")
                                        .config(
                                                "spark.sql.catalog.s3lake.uri",
                                                "jdbc:sqlite:" + tmp.resolve("s3lake.db"))
                                        .config(
                                                "spark.sql.catalog.s3lake.warehouse",
                                                "s3://"
                                                        + ObjectStore.BUCKET
                                                        + "/"
                                                        + S3_LAKE
                                                        + "/warehouse/_iceberg")
                                        // Not cached: the test reads the table again after
                                        // ./sluice commits to it.
                                        .config("spark.sql.catalog.s3lake.cache-enabled", "false")
                                        .config(
                                                "spark.sql.catalog.s3lake.io-impl",
                                                "org.apache.iceberg.aws.s3.S3FileIO")
                                        .config(
                                                "spark.sql.catalog.s3lake.s3.endpoint",
                                                store.endpoint().toString())
                                        .config(
                                                "spark.sql.catalog.s3lake.s3.path-style-access",
                                                "true")
                                        .config(
                                                "spark.sql.catalog.s3lake.s3.access-key-id",
                                                store.accessKey)
                                        .config(
                                                "spark.sql.catalog.s3lake.s3.secret-access-key",
                                                store.secretKey)
                                        .config(
                                                "spark.sql.catalog.s3lake.client.region",
                                                "us-east-1")
                                        .config(
                                                "spark.sql.warehouse.dir",
                                                tmp.resolve("spark-warehouse").toString())
                                        .getOrCreate());
        dir = tmp.resolve("data");
        sluice("demo", "--events", "500", "--seed", "7", "--data-dir", dir.toString());
        startS3Lake();
        // The ddl test's scripts, printed while the footers are read.
        for (Path table : tables("warehouse")) {
            start(ddl(table));
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".parquet")).toList()) {
                if (f.startsWith(dir.resolve("warehouse"))
                        || f.startsWith(dir.resolve("features"))) {
                    footers.put(f, footer(f));
                }
            }
        }
        spark = session.join();
    }

    /**
     * The time-travel test's lake: a copy of the demo's landing hours of purchases uploaded to the
     * object store, and a config for it with a catalog of its own. Its first compaction starts
     * here, beside the rest of the set-up, and the test waits for it.
     */
    private static void startS3Lake() throws IOException {
        Path raw = tmp.resolve(S3_RAW);
        try (Stream<Path> files = Files.walk(dir.resolve("raw/purchases"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path copy = raw.resolve(dir.resolve("raw/purchases").relativize(f));
                Files.createDirectories(copy.getParent());
                Files.copy(f, copy);
            }
        }
        store.upload(raw, S3_LAKE + "/raw/purchases");
        String yaml = Files.readString(dir.resolve("sluice.yaml"));
        Path config = tmp.resolve("s3lake.yaml");
        Files.writeString(
                config,
                yaml.replace(
                                "storage:\n  root: file:.\n",
                                String.format(
                                        "storage:%n  root: s3://%s/%s%n  s3:%n    endpoint: %s%n"
                                                + "    region: us-east-1%n"
                                                + "    path_style_access: true%n"
                                                + "    access_key_env: %s%n"
                                                + "    secret_key_env: %s%n",
                                        ObjectStore.BUCKET,
                                        S3_LAKE,
                                        store.endpoint(),
                                        ObjectStore.ACCESS_KEY_ENV,
                                        ObjectStore.SECRET_KEY_ENV))
                        .replace(
                                "\ncatalog:\n",
                                String.format(
                                        "%ncatalog:%n  name: s3lake%n  path: %s%n",
                                        tmp.resolve("s3lake.db"))));
        start(compactS3Lake(config));
    }

    private static List<String> compactS3Lake(Path config) {
        return List.of("compact", "--config", config.toString());
    }

    @AfterAll
    static void stop() {
        runs.values().forEach(run -> run.process().destroyForcibly());
        if (session != null) {
            session.join().stop();
        }
        if (store != null) {
            try {
                store.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Each test starts with no table: the README's example creates its own. */
    @BeforeEach
    void dropTables() {
        for (Table t : spark.catalog().listTables().collectAsList()) {
            spark.sql("DROP TABLE `" + t.name() + "`");
        }
    }

    /**
     * Each warehouse table's Iceberg table, read by Spark through the demo's catalog (Iceberg's
     * Spark runtime, configured as the README says), holds exactly the rows Spark reads from the
     * Hive layout, in exactly the warehouse's files, with one snapshot per compacted hour; read as
     * of its first snapshot, it holds exactly the rows of the first hour compacted.
     */
    @Test
    void eachIcebergTableHoldsExactlyItsWarehouseRowsAndFiles() throws IOException {
        assertThat(
                        spark.sql("SHOW TABLES IN sluice.sluice").collectAsList().stream()
                                .map(r -> r.getString(1))
                                .toList())
                .containsExactlyInAnyOrderElementsOf(
                        tables("warehouse").stream().map(t -> t.getFileName().toString()).toList());
        for (Path table : tables("warehouse")) {
            String name = table.getFileName().toString();
            String iceberg = "sluice.sluice." + name;
            assertThat(ids(spark.sql("SELECT event_id FROM " + iceberg)))
                    .as(name + " rows")
                    .isNotEmpty()
                    .containsExactlyInAnyOrderElementsOf(
                            ids(spark.read().parquet(table.toString()).select("event_id")));

            Set<Path> files = new HashSet<>();
            spark.sql("SELECT file_path FROM " + iceberg + ".files")
                    .collectAsList()
                    .forEach(r -> files.add(Path.of(URI.create(r.getString(0)))));
            Set<Path> warehouseFiles = new HashSet<>();
            footers.keySet().stream().filter(f -> f.startsWith(table)).forEach(warehouseFiles::add);
            assertThat(files).as(name + " data files").isEqualTo(warehouseFiles);

            Set<String> hours = new HashSet<>();
            warehouseFiles.forEach(f -> hours.add(table.relativize(f.getParent()).toString()));
            List<Row> snapshots =
                    spark.sql(
                                    "SELECT snapshot_id, summary['sluice.partition'] FROM "
                                            + iceberg
                                            + ".snapshots ORDER BY committed_at, snapshot_id")
                            .collectAsList();
            assertThat(snapshots.stream().map(r -> r.getString(1)).toList())
                    .as(name + ": one snapshot per compacted hour")
                    .containsExactlyInAnyOrderElementsOf(hours);

            // Time travel: as of the first snapshot, the table is its first hour.
            Row first = snapshots.get(0);
            Path firstHour = table.resolve(first.getString(1));
            long firstHourRows =
                    warehouseFiles.stream()
                            .filter(f -> f.getParent().equals(firstHour))
                            .mapToLong(f -> footers.get(f).rows())
                            .sum();
            assertThat(
                            spark.sql(
                                            "SELECT count(*) FROM "
                                                    + iceberg
                                                    + " VERSION AS OF "
                                                    + first.getLong(0))
                                    .first()
                                    .getLong(0))
                    .as(name + " as of its first snapshot")
                    .isPositive()
                    .isEqualTo(firstHourRows)
                    .isLessThan(spark.sql("SELECT count(*) FROM " + iceberg).first().getLong(0));
        }
    }

    /**
     * Time travel across a late-data re-compaction, read by Spark through the catalog: the demo's
     * purchases landing hours on an object store (S3Proxy), compacted there by {@code ./sluice
     * compact} into a lake with a catalog of its own; late events land in one hour, which is
     * compacted again. Spark reads the table as of the snapshot before (exactly the demo's
     * warehouse rows) and the one after (those and the late events). On an object store the hour's
     * replaced files stay for the grace period, so the old snapshot is still whole.
     */
    @Test
    @Order(Integer.MAX_VALUE) // last: its lake's first compaction runs while the others do
    void sparkReadsAnS3LakeAsOfBothSnapshotsOfALateDataRecompaction() throws IOException {
        Path raw = tmp.resolve(S3_RAW);
        Path config = tmp.resolve("s3lake.yaml");
        assertThat(Files.readString(config)).contains("s3://lake/lake", "name: s3lake");
        sluice(compactS3Lake(config));
        String table = "s3lake.sluice.purchases";
        long before = current(table);
        Set<String> demo =
                new HashSet<>(
                        ids(
                                spark.read()
                                        .parquet(dir.resolve("warehouse/purchases").toString())
                                        .select("event_id")));
        assertThat(asOf(table, before)).as("the lake on S3, as compacted").isEqualTo(demo);

        String hour;
        try (Stream<Path> hours = Files.list(raw)) {
            hour =
                    hours.flatMap(SparkReaderITCase::hoursOf)
                            .map(h -> raw.relativize(h).toString())
                            .sorted()
                            .toList()
                            .get(1);
        }
        List<String> late = LateEvents.land(raw.resolve(hour), 5, "event_id");
        store.upload(raw.resolve(hour), S3_LAKE + "/raw/purchases/" + hour);
        String from = hour.replace("dt=", "").replace("/hr=", "T");
        assertThat(sluice("compact", "--config", config.toString(), "--from", from))
                .as("the late hour compacted again")
                .contains(hour);
        long after = current(table);
        assertThat(after).isNotEqualTo(before);
        assertThat(
                        spark.sql(
                                        "SELECT summary['sluice.partition'] FROM "
                                                + table
                                                + ".snapshots WHERE snapshot_id = "
                                                + after)
                                .first()
                                .getString(0))
                .isEqualTo(hour);

        Set<String> withLate = new HashSet<>(demo);
        withLate.addAll(late);
        assertThat(asOf(table, after)).as("as of the re-compaction").isEqualTo(withLate);
        assertThat(asOf(table, before)).as("as of the snapshot before it").isEqualTo(demo);
    }

    /** The current snapshot of an Iceberg table, from its {@code main} branch. */
    private static long current(String table) {
        return spark.sql("SELECT snapshot_id FROM " + table + ".refs WHERE name = 'main'")
                .first()
                .getLong(0);
    }

    /** The event ids of {@code table} as of {@code snapshot}. */
    private static Set<String> asOf(String table, long snapshot) {
        return new HashSet<>(
                ids(spark.sql("SELECT event_id FROM " + table + " VERSION AS OF " + snapshot)));
    }

    /** The hour directories of a day directory. */
    private static Stream<Path> hoursOf(Path day) {
        try {
            return Files.list(day).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> ids(Dataset<Row> rows) {
        return rows.collectAsList().stream().map(r -> r.getString(0)).toList();
    }

    @Test
    void everyColumnHasTheSparkTypeOfTheReadmeTable() throws IOException {
        List<Map<String, String>> types = ReadmeBlocks.table(TYPES);
        assertThat(tables("warehouse"))
                .extracting(t -> t.getFileName().toString())
                .containsExactlyInAnyOrder("page_views", "add_to_cart", "purchases");
        assertThat(tables("features")).isNotEmpty();
        Set<Integer> rowsSeen = new HashSet<>();
        Map<String, Integer> rowOfColumn = new HashMap<>();
        for (Path table : concat(tables("warehouse"), tables("features"))) {
            for (StructField field : spark.read().parquet(table.toString()).schema().fields()) {
                String what = dir.relativize(table) + " column " + field.name();
                String type = field.dataType().sql();
                int row;
                if (List.of("dt", "hr").contains(field.name())) {
                    row = partitionRow(types, field.name());
                    assertThat(type)
                            .as(what + ", inferred from the directories")
                            .isEqualTo(sparkType(types.get(row), "when inferred"));
                } else {
                    String parquet = parquetType(table, field.name());
                    row = parquetRow(types, parquet, what);
                    assertThat(List.of(type))
                            .as(what + ", Parquet " + parquet)
                            .isEqualTo(codes(types.get(row).get("Spark")));
                }
                rowsSeen.add(row);
                Integer before = rowOfColumn.put(field.name(), row);
                assertThat(before == null || before == row)
                        .as(field.name() + " has one type in every table")
                        .isTrue();
            }
        }
        // Every row is some column's, and every column the table names is in its row.
        assertThat(rowsSeen).as("README rows a column has").hasSize(types.size());
        for (int row = 0; row < types.size(); row++) {
            for (String named : codes(types.get(row).get("columns"))) {
                Pattern glob = Pattern.compile(Pattern.quote(named).replace("*", "\\E.*\\Q"));
                for (Map.Entry<String, Integer> column : rowOfColumn.entrySet()) {
                    if (glob.matcher(column.getKey()).matches()) {
                        assertThat(column.getValue())
                                .as("README row of `" + column.getKey() + "`")
                                .isEqualTo(row);
                    }
                }
            }
        }
    }

    @Test
    void theSparkDdlOfEveryTableCountsEveryWarehouseRow() throws IOException {
        List<Map<String, String>> types = ReadmeBlocks.table(TYPES);
        long total = 0;
        for (Path table : tables("warehouse")) {
            String name = table.getFileName().toString();
            String script = sluice(ddl(table));
            List<String> statements = ReadmeBlocks.statements(script);
            assertThat(statements).as(script).hasSize(2);
            statements.forEach(spark::sql);

            long inFiles =
                    footers.entrySet().stream()
                            .filter(f -> f.getKey().startsWith(table))
                            .mapToLong(f -> f.getValue().rows())
                            .sum();
            assertThat(inFiles).as(name + " rows in its files").isPositive();
            assertThat(spark.sql("SELECT count(*) FROM `" + name + "`").first().getLong(0))
                    .as(name + " rows through its table")
                    .isEqualTo(inFiles);
            total += inFiles;

            // The declared columns are the files' own; dt and hr as the README says.
            StructType declared = spark.table(name).schema();
            StructType inferred = spark.read().parquet(table.toString()).schema();
            assertThat(declared.fieldNames()).containsExactly(inferred.fieldNames());
            for (StructField field : declared.fields()) {
                String want =
                        List.of("dt", "hr").contains(field.name())
                                ? sparkType(
                                        types.get(partitionRow(types, field.name())),
                                        "in the `ddl` table")
                                : inferred.apply(field.name()).dataType().sql();
                assertThat(field.dataType().sql())
                        .as(name + " table column " + field.name())
                        .isEqualTo(want);
            }
        }
        // The demo's own count, which it checked against the landing zone.
        Matcher summary =
                Pattern.compile("\"warehouse_rows\" : (\\d+)")
                        .matcher(Files.readString(dir.resolve("summary.json")));
        assertThat(summary.find()).isTrue();
        assertThat(total).isEqualTo(Long.parseLong(summary.group(1)));
    }

    @Test
    void theReadmeSparkExamplesReturnRows() throws IOException {
        List<String> blocks = ReadmeBlocks.blocks("spark");
        assertThat(blocks).isNotEmpty();
        int queries = 0;
        for (String block : blocks) {
            queries += runPySpark(block);
        }
        assertThat(queries).isGreaterThanOrEqualTo(2);
    }

    // The PySpark the README writes, statement by statement: each form below is translated to
    // Spark's Java API as written, and any other statement fails the test.
    private static final Pattern IMPORT = Pattern.compile("import [\\w.]+\\n");
    private static final Pattern COMMENT = Pattern.compile("#[^\\n]*\\n");
    private static final Pattern SUBPROCESS =
            Pattern.compile(
                    "(\\w+) = subprocess\\.run\\(\\[([^\\]]*)\\],\\s*capture_output=True,"
                            + " text=True, check=True\\)\\.stdout\\n");
    private static final Pattern FOR_EACH_STATEMENT =
            Pattern.compile(
                    "for (\\w+) in (\\w+)\\.split\\(\"([^\"]*)\"\\):\\n"
                            + "\\s+if \\1\\.strip\\(\\):\\n"
                            + "\\s+spark\\.sql\\(\\1\\)\\n");
    private static final Pattern SQL_SHOW =
            Pattern.compile("spark\\.sql\\(\"([^\"]*)\"\\)\\.show\\(\\)\\n");
    private static final Pattern READ_PARQUET =
            Pattern.compile("spark\\.read\\.parquet\\(\"([^\"]*)\"\\)((?:\\.\\w+\\([^)]*\\))+)\\n");
    private static final Pattern CALL = Pattern.compile("\\.(\\w+)\\(([^)]*)\\)");
    private static final Pattern STRING = Pattern.compile("\"([^\"]*)\"");

    /** Runs one README block on the demo's output; returns how many queries returned rows. */
    private static int runPySpark(String block) {
        String code = block.replace("DIR/", dir + "/").stripIndent();
        Map<String, String> strings = new HashMap<>();
        int queries = 0;
        int at = 0;
        while (at < code.length()) {
            if (Character.isWhitespace(code.charAt(at))) {
                at++;
                continue;
            }
            Matcher m;
            if ((m = match(IMPORT, code, at)) != null || (m = match(COMMENT, code, at)) != null) {
                // Nothing to run.
            } else if ((m = match(SUBPROCESS, code, at)) != null) {
                List<String> command = strings(m.group(2));
                assertThat(command.get(0)).isEqualTo("./sluice");
                strings.put(m.group(1), sluice(command.subList(1, command.size())));
            } else if ((m = match(FOR_EACH_STATEMENT, code, at)) != null) {
                String script = strings.get(m.group(2));
                assertThat(script).as(m.group(2)).isNotNull();
                int ran = 0;
                for (String statement : script.split(Pattern.quote(unescape(m.group(3))))) {
                    if (!statement.isBlank()) {
                        spark.sql(statement);
                        ran++;
                    }
                }
                assertThat(ran).as("statements of " + m.group(2)).isPositive();
            } else if ((m = match(SQL_SHOW, code, at)) != null) {
                assertThat(spark.sql(m.group(1)).collectAsList())
                        .as("README example returns rows: %s", m.group())
                        .isNotEmpty();
                queries++;
            } else if ((m = match(READ_PARQUET, code, at)) != null) {
                assertThat(chain(spark.read().parquet(m.group(1)), m.group(2)))
                        .as("README example returns rows: %s", m.group())
                        .isNotEmpty();
                queries++;
            } else {
                fail(
                        "README Spark example: no translation for %s",
                        code.substring(at, code.indexOf('\n', at)));
            }
            at = m.end();
        }
        return queries;
    }

    /** {@code .where(…)}, {@code .groupBy(…)}, {@code .count()} and a final {@code .show()}. */
    private static List<?> chain(Dataset<Row> data, String calls) {
        Object current = data;
        Matcher call = CALL.matcher(calls);
        while (call.find()) {
            List<String> args = strings(call.group(2));
            switch (call.group(1)) {
                case "where" -> current = ((Dataset<?>) current).where(args.get(0));
                case "groupBy" ->
                        current =
                                ((Dataset<?>) current)
                                        .groupBy(
                                                args.get(0),
                                                args.subList(1, args.size())
                                                        .toArray(String[]::new));
                case "count" -> current = ((RelationalGroupedDataset) current).count();
                case "show" -> {
                    assertThat(call.end()).as("show() ends " + calls).isEqualTo(calls.length());
                    return ((Dataset<?>) current).collectAsList();
                }
                default -> fail("README Spark example: no translation for ." + call.group(1));
            }
        }
        return fail("README Spark example does not end in show(): " + calls);
    }

    private static Matcher match(Pattern pattern, String code, int at) {
        Matcher m = pattern.matcher(code).region(at, code.length());
        return m.lookingAt() ? m : null;
    }

    private static List<String> strings(String python) {
        List<String> strings = new ArrayList<>();
        Matcher m = STRING.matcher(python);
        while (m.find()) {
            strings.add(unescape(m.group(1)));
        }
        return strings;
    }

    private static String unescape(String python) {
        return python.replace("\\n", "\n");
    }

    /** The README table's row of a partition directory, {@code dt=…} or {@code hr=…}. */
    private static int partitionRow(List<Map<String, String>> types, String column) {
        for (int row = 0; row < types.size(); row++) {
            if (types.get(row).get("Parquet type").startsWith("directory `" + column + "=")) {
                return row;
            }
        }
        return fail("no README row for directory " + column + "=");
    }

    /** The README table's row of a Parquet type, as {@link #parquetType} writes it. */
    private static int parquetRow(List<Map<String, String>> types, String parquet, String what) {
        for (int row = 0; row < types.size(); row++) {
            if (String.join(" ", codes(types.get(row).get("Parquet type"))).equals(parquet)) {
                return row;
            }
        }
        return fail("no README row for Parquet " + parquet + " (" + what + ")");
    }

    /** The type a partition row's Spark cell gives before {@code when} (e.g. "when inferred"). */
    private static String sparkType(Map<String, String> row, String when) {
        Matcher m = Pattern.compile("`(\\w+)` " + Pattern.quote(when)).matcher(row.get("Spark"));
        assertThat(m.find()).as("Spark cell %s names a type %s", row.get("Spark"), when).isTrue();
        return m.group(1);
    }

    /** The {@code `code`} spans of a table cell. */
    private static List<String> codes(String cell) {
        List<String> codes = new ArrayList<>();
        Matcher m = Pattern.compile("`([^`]+)`").matcher(cell);
        while (m.find()) {
            codes.add(m.group(1));
        }
        return codes;
    }

    /**
     * A column's Parquet type in the README's words ({@code INT64 TIMESTAMP(MICROS,
     * isAdjustedToUTC=true)}), the same in every data file of the table.
     */
    private static String parquetType(Path table, String column) {
        Set<String> seen = new HashSet<>();
        footers.forEach(
                (file, footer) -> {
                    if (file.startsWith(table)) {
                        PrimitiveType type = footer.schema().getType(column).asPrimitiveType();
                        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
                        // parquet-java's BINARY is the format's BYTE_ARRAY.
                        String name =
                                type.getPrimitiveTypeName() == PrimitiveTypeName.BINARY
                                        ? "BYTE_ARRAY"
                                        : type.getPrimitiveTypeName().name();
                        seen.add(
                                logical == null
                                        ? name
                                        : logical instanceof TimestampLogicalTypeAnnotation t
                                                ? name
                                                        + " TIMESTAMP("
                                                        + t.getUnit()
                                                        + ", isAdjustedToUTC="
                                                        + t.isAdjustedToUTC()
                                                        + ")"
                                                : name + " " + logical);
                    }
                });
        assertThat(seen).as(table + " column " + column + " in its files").hasSize(1);
        return seen.iterator().next();
    }

    private static Footer footer(Path file) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(new LocalInputFile(file), FOOTER_OPTIONS)) {
            return new Footer(
                    reader.getFooter().getFileMetaData().getSchema(), reader.getRecordCount());
        }
    }

    /** The table directories under {@code DIR/kind}. */
    private static List<Path> tables(String kind) throws IOException {
        try (Stream<Path> tables = Files.list(dir.resolve(kind))) {
            // Skips warehouse/_iceberg, the Iceberg tables' metadata, as Hive-style readers do.
            return tables.filter(Files::isDirectory)
                    .filter(t -> !t.getFileName().toString().startsWith("_"))
                    .sorted()
                    .toList();
        }
    }

    /** {@code sluice ddl --dialect spark} of a warehouse table, as the README runs it. */
    private static List<String> ddl(Path table) {
        return List.of(
                "ddl",
                "--config",
                dir.resolve("sluice.yaml").toString(),
                "--dialect",
                "spark",
                table.getFileName().toString());
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }

    private static String sluice(String... args) {
        return sluice(List.of(args));
    }

    /**
     * {@code ./sluice ARGS} from the repository root, as the README runs it; its standard output.
     * Fails on a non-zero exit, with the tail of what it printed. A command asked for again (the
     * README's ddl of a table the ddl test also runs) is run once.
     */
    private static String sluice(List<String> args) {
        return start(args).output();
    }

    /** Starts {@code ./sluice ARGS} without waiting, unless the same command started before. */
    private static Run start(List<String> args) {
        return runs.computeIfAbsent(List.copyOf(args), Run::start);
    }

    /** One {@code ./sluice} process, its standard output and error in files. */
    private record Run(List<String> args, Process process, Path out, Path err) {

        static Run start(List<String> args) {
            try {
                Path out = Files.createTempFile(tmp, "sluice", ".out");
                Path err = Files.createTempFile(tmp, "sluice", ".err");
                List<String> command = new ArrayList<>(List.of("bash", "./sluice"));
                command.addAll(args);
                ProcessBuilder builder =
                        new ProcessBuilder(command)
                                .directory(HOME.toFile())
                                .redirectOutput(out.toFile())
                                .redirectError(err.toFile());
                builder.environment()
                        .put(
                                "SLUICE_JAVA_OPTS",
                                "-Xmx1g " + String.join(" ", ChildJava.inheritedOptions()));
                // The object store's keys, for a lake on it (storage.s3 names these variables).
                builder.environment().put(ObjectStore.ACCESS_KEY_ENV, store.accessKey);
                builder.environment().put(ObjectStore.SECRET_KEY_ENV, store.secretKey);
                return new Run(args, builder.start(), out, err);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String output() {
            try {
                if (!process.waitFor(5, TimeUnit.MINUTES)) {
                    process.destroyForcibly().waitFor();
                    fail("./sluice %s still running after 5 minutes", args);
                }
                String output = Files.readString(out, StandardCharsets.UTF_8);
                assertThat(process.exitValue())
                        .as(
                                "./sluice %s exit code; its output ends:%n%s%nand its errors:%n%s",
                                args,
                                tail(output),
                                tail(Files.readString(err, StandardCharsets.UTF_8)))
                        .isZero();
                return output;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static String tail(String output) {
        return output.substring(Math.max(0, output.length() - 4_000));
    }
}
