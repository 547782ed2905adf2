package io.sluice.features.training;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.CachingTileReader;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.Windows;
import io.sluice.features.offline.WarehouseEvents;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.ingest.HourManifest;
import io.sluice.ingest.HourPartitioner;
import io.sluice.warehouse.HiveBucketing;
import io.sluice.warehouse.HourCompactor;
import io.sluice.warehouse.WarehouseManifest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Point-in-time-correct training sets: for each spine row {@code (e, t, labels…)}, every requested
 * feature as {@code value(f, e, t)}, computed by the shared library ({@link Windows}, {@link
 * EntityTiles}) from the warehouse's events, the same code that serves them online.
 *
 * <p>It reads only what the rows need: per view, the hours their windows touch and, in each, the
 * bucket files of the spine's entities. A training set is an immutable artifact under {@code
 * <root>/training_sets/<digest>/}, addressed by a digest of the spine's bytes, the definitions of
 * the requested features and the manifests of every warehouse hour read; a request whose digest
 * exists is answered with that artifact without recomputing.
 */
public final class TrainingSetBuilder {

    /** The default name of the spine's time column. */
    public static final String TIMESTAMP_COLUMN = "event_timestamp";

    private static final String DATA = "training_set.parquet";
    private static final String MANIFEST = "_SUCCESS";

    /**
     * A request.
     *
     * @param spine a Parquet or CSV file of (entity, timestamp, labels…)
     * @param features {@code view:feature}, in output order
     * @param timestampColumn the spine's time column
     * @param sample an entity sample, if any
     * @param statusColumns whether to add {@code <view>__<feature>__status} after the features
     */
    public record Request(
            Path spine,
            List<FeatureRef> features,
            String timestampColumn,
            Optional<Sample> sample,
            boolean statusColumns) {

        public Request {
            if (features.isEmpty()) {
                throw new IllegalArgumentException("--features: name at least one view:feature");
            }
            features = List.copyOf(features);
        }

        public static Request of(Path spine, List<FeatureRef> features) {
            return new Request(spine, features, TIMESTAMP_COLUMN, Optional.empty(), false);
        }
    }

    /**
     * What a build did.
     *
     * @param digest the artifact's address
     * @param data the artifact's Parquet file
     * @param reused whether an existing artifact answered the request
     * @param rows rows in the training set
     * @param partitions warehouse hours the rows needed, as {@code table/dt=…/hr=…}
     * @param filesRead bucket files read (0 when reused)
     * @param statuses per {@code view:feature}, how many values had each status (empty when reused)
     */
    public record Result(
            String digest,
            Path data,
            boolean reused,
            long rows,
            List<String> partitions,
            List<Path> filesRead,
            Map<String, Map<Status, Long>> statuses) {}

    private final SluiceConfig config;
    private final Path root;
    private final int threads;

    public TrainingSetBuilder(SluiceConfig config) {
        this(config, Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    public TrainingSetBuilder(SluiceConfig config, int threads) {
        if (!"file".equals(config.rootUri().getScheme())) {
            throw new IllegalArgumentException(
                    "storage.root: the training-set builder reads a file: lake, got "
                            + config.rootUri());
        }
        this.config = config;
        this.root = Path.of(config.rootUri());
        this.threads = threads;
    }

    /** Where artifacts live: {@code <root>/training_sets}. */
    public Path artifacts() {
        return root.resolve("training_sets");
    }

    /** Builds the training set, or finds it already built. */
    public Result build(Request request) throws IOException {
        return build(request, true);
    }

    /**
     * @param reuse false to compute even when the artifact exists (benchmarks); the result is then
     *     not stored
     */
    public Result build(Request request, boolean reuse) throws IOException {
        Spine spine = Spine.read(request.spine());
        Plan plan = plan(spine, request);
        String digest = digest(spine, request, plan);
        Path dir = artifacts().resolve(digest);
        if (reuse && Files.isRegularFile(dir.resolve(MANIFEST))) {
            return new Result(
                    digest,
                    dir.resolve(DATA),
                    true,
                    plan.rows.length,
                    plan.partitions,
                    List.of(),
                    Map.of());
        }
        Computed computed = compute(spine, request, plan);
        if (!reuse) {
            Path data = Files.createTempFile("training-set-", ".parquet");
            write(spine, request, plan, computed, data);
            return new Result(
                    digest,
                    data,
                    false,
                    plan.rows.length,
                    plan.partitions,
                    computed.files,
                    computed.statuses);
        }
        Files.createDirectories(artifacts());
        Path staging = artifacts().resolve("_staging-" + UUID.randomUUID());
        Files.createDirectories(staging);
        boolean reused = false; // true if a concurrent request with the same inputs got there first
        try {
            write(spine, request, plan, computed, staging.resolve(DATA));
            Map<String, Object> manifest = new LinkedHashMap<>();
            manifest.put("digest", digest);
            manifest.put("created", Instant.now().toString());
            manifest.put("spine", spine.file().toAbsolutePath().toString());
            manifest.put("rows", plan.rows.length);
            manifest.put(
                    "features", request.features().stream().map(FeatureRef::toString).toList());
            manifest.put("sample", request.sample().map(Sample::toString).orElse(null));
            manifest.put("partitions", plan.partitions);
            manifest.put("files_read", computed.files.size());
            manifest.put("statuses", computed.statuses);
            new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValue(staging.resolve(MANIFEST).toFile(), manifest);
            reused = Files.exists(dir);
            if (!reused) {
                Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            deleteTree(staging);
        }
        return new Result(
                digest,
                dir.resolve(DATA),
                reused,
                plan.rows.length,
                plan.partitions,
                computed.files,
                computed.statuses);
    }

    /** Copies a result's data to {@code out}, replacing it atomically. */
    public static void export(Result result, Path out) throws IOException {
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve("." + out.getFileName() + ".tmp-" + UUID.randomUUID());
        Files.copy(result.data(), tmp);
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    // ---------------------------------------------------------------------------------------
    // Planning: which rows, views, hours and buckets

    /** One requested view: its features and the spine rows it reads. */
    private static final class ViewPlan {
        final ViewDef view;
        final TableConfig table;
        final List<Integer> columns = new ArrayList<>(); // output feature positions
        final List<FeatureDef> features = new ArrayList<>();
        long longest;
        final TreeSet<Long> hours = new TreeSet<>();

        ViewPlan(ViewDef view, TableConfig table) {
            this.view = view;
            this.table = table;
        }
    }

    private static final class Plan {
        int[] rows; // spine row of each output row
        String[] keys;
        long[] times;
        int[][] buckets; // [view][output row]
        final List<ViewPlan> views = new ArrayList<>();
        final List<String> partitions = new ArrayList<>();
        final List<String> manifests = new ArrayList<>();
    }

    private Plan plan(Spine spine, Request request) throws IOException {
        Plan plan = new Plan();
        Map<String, ViewPlan> byName = new LinkedHashMap<>();
        List<ViewDef> all = new ArrayList<>();
        for (var v : config.featureViews()) {
            all.add(ViewDef.of(v, config.table(v.source()).orElseThrow()));
        }
        for (int i = 0; i < request.features().size(); i++) {
            FeatureRef ref = request.features().get(i);
            ViewDef view =
                    all.stream()
                            .filter(v -> v.name().equals(ref.view()))
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new IllegalArgumentException(
                                                    "--features: unknown feature view '"
                                                            + ref.view()
                                                            + "' in "
                                                            + ref
                                                            + "; views: "
                                                            + String.join(
                                                                    ", ",
                                                                    all.stream()
                                                                            .map(ViewDef::name)
                                                                            .toList())));
            FeatureDef def = view.feature(ref.feature());
            if (def == null) {
                throw new IllegalArgumentException(
                        "--features: view '"
                                + view.name()
                                + "' has no feature '"
                                + ref.feature()
                                + "'; its features: "
                                + String.join(
                                        ", ",
                                        view.features().stream().map(FeatureDef::name).toList()));
            }
            ViewPlan vp =
                    byName.computeIfAbsent(
                            view.name(),
                            n ->
                                    new ViewPlan(
                                            view,
                                            config.table(
                                                            config.featureView(n)
                                                                    .orElseThrow()
                                                                    .source())
                                                    .orElseThrow()));
            if (vp.features.contains(def)) {
                throw new IllegalArgumentException("--features: " + ref + " is named twice");
            }
            vp.features.add(def);
            vp.columns.add(i);
            vp.longest = Math.max(vp.longest, def.windowMillis());
        }
        plan.views.addAll(byName.values());

        Schema.Field time =
                spine.column(request.timestampColumn(), "the time column; see --timestamp-column");
        String entity = null;
        Schema.Field key = null;
        for (ViewPlan vp : plan.views) {
            String e = config.featureView(vp.view.name()).orElseThrow().entity();
            if (entity != null && !entity.equals(e)) {
                throw new IllegalArgumentException(
                        "--features: the views' entities differ ("
                                + entity
                                + ", "
                                + e
                                + "); request features of one entity per training set");
            }
            entity = e;
            key = spine.column(e, "the entity of view " + vp.view.name());
        }

        // Sampling selects by the first view's table: its buckets are what a sample aligns to.
        TableConfig first = plan.views.get(0).table;
        Sample.Selector selector =
                request.sample().map(s -> s.selector(first.buckets())).orElse(null);
        int n = spine.rows().size();
        int[] rows = new int[n];
        String[] keys = new String[n];
        long[] times = new long[n];
        int kept = 0;
        for (int r = 0; r < n; r++) {
            String k = spine.key(r, key);
            long t = spine.millis(r, time);
            if (selector != null && !selector.selects(k, bucket(first, k))) {
                continue;
            }
            rows[kept] = r;
            keys[kept] = k;
            times[kept] = t;
            kept++;
        }
        plan.rows = java.util.Arrays.copyOf(rows, kept);
        plan.keys = java.util.Arrays.copyOf(keys, kept);
        plan.times = java.util.Arrays.copyOf(times, kept);
        plan.buckets = new int[plan.views.size()][kept];

        long hour = HourPartitioner.hourMillis();
        for (int v = 0; v < plan.views.size(); v++) {
            ViewPlan vp = plan.views.get(v);
            // The union of the rows' windows [floor_s(t) − W, t), as whole hours.
            List<long[]> spans = new ArrayList<>(kept);
            for (int i = 0; i < kept; i++) {
                plan.buckets[v][i] = bucket(vp.table, plan.keys[i]);
                long from = Windows.floor(plan.times[i], vp.view.tileMillis()) - vp.longest;
                spans.add(new long[] {Windows.floor(from, hour), plan.times[i]});
            }
            spans.sort((a, b) -> Long.compare(a[0], b[0]));
            long next = Long.MIN_VALUE;
            for (long[] s : spans) {
                for (long h = Math.max(s[0], next); h < s[1]; h += hour) {
                    vp.hours.add(h);
                }
                next = Math.max(next, Windows.floor(s[1] - 1, hour) + hour);
            }
            checkComplete(vp);
            Path warehouse = Path.of(config.tablePath("warehouse", vp.table.name()));
            for (long h : vp.hours) {
                String partition = HourPartitioner.partition(h);
                Path manifest = warehouse.resolve(partition).resolve(WarehouseManifest.NAME);
                if (Files.isRegularFile(manifest)) {
                    plan.partitions.add(vp.table.name() + "/" + partition);
                    plan.manifests.add(
                            vp.table.name()
                                    + "/"
                                    + partition
                                    + " "
                                    + sha256(Files.readAllBytes(manifest)));
                }
            }
        }
        return plan;
    }

    /** Refuses hours the warehouse does not have completely and up to date. */
    private void checkComplete(ViewPlan vp) throws IOException {
        if (vp.hours.isEmpty()) {
            return;
        }
        long hour = HourPartitioner.hourMillis();
        Path raw = Path.of(config.tablePath("raw", vp.table.name()));
        List<String> open = new ArrayList<>();
        for (long h : vp.hours) {
            Path dir = raw.resolve(HourPartitioner.partition(h));
            if (Files.isDirectory(dir) && !Files.exists(dir.resolve(HourManifest.NAME))) {
                open.add(HourPartitioner.partition(h));
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalStateException(
                    String.format(
                            "table %s: hour(s) %s are still open (no _SUCCESS in raw/): the"
                                    + " spine's times need events that may not have landed yet",
                            vp.table.name(), summarise(open)));
        }
        List<String> stale =
                new HourCompactor(vp.table, root)
                                .pending(
                                        Optional.of(vp.hours.first()),
                                        Optional.of(vp.hours.last() + hour),
                                        false)
                                .stream()
                                .filter(p -> vp.hours.contains(HourPartitioner.parse(p)))
                                .toList();
        if (!stale.isEmpty()) {
            throw new IllegalStateException(
                    String.format(
                            "table %s: hour(s) %s are complete but not compacted (or changed"
                                    + " since): run `sluice compact` first",
                            vp.table.name(), summarise(stale)));
        }
    }

    private static String summarise(List<String> partitions) {
        return partitions.size() <= 5
                ? String.join(", ", partitions)
                : String.join(", ", partitions.subList(0, 5))
                        + " and "
                        + (partitions.size() - 5)
                        + " more";
    }

    private static int bucket(TableConfig table, String key) {
        Schema.Type type = Spine.nonNull(table.schema().getField(table.key()).schema()).getType();
        Object typed =
                switch (type) {
                    case INT -> Integer.parseInt(key);
                    case LONG -> Long.parseLong(key);
                    default -> key;
                };
        return HiveBucketing.bucket(typed, table.buckets());
    }

    private String digest(Spine spine, Request request, Plan plan) throws IOException {
        StringBuilder s = new StringBuilder("sluice-training-set v1\n");
        s.append("spine ").append(fileSha256(spine.file())).append('\n');
        s.append("timestamp_column ").append(request.timestampColumn()).append('\n');
        s.append("sample ")
                .append(request.sample().map(Sample::toString).orElse("none"))
                .append('\n');
        s.append("status_columns ").append(request.statusColumns()).append('\n');
        for (FeatureRef ref : request.features()) {
            ViewPlan vp =
                    plan.views.stream()
                            .filter(v -> v.view.name().equals(ref.view()))
                            .findFirst()
                            .orElseThrow();
            FeatureDef f = vp.view.feature(ref.feature());
            s.append(
                    String.format(
                            "feature %s tile=%d coarse=%d ttl=%d agg=%s field=%s window=%d type=%s"
                                    + " table=%s key=%s id=%s time=%s buckets=%d%n",
                            ref,
                            vp.view.tileMillis(),
                            vp.view.coarseMillis(),
                            vp.view.ttlMillis(),
                            f.agg(),
                            f.valueIndex() < 0 ? "" : vp.view.fields().get(f.valueIndex()),
                            f.windowMillis(),
                            f.type(),
                            vp.table.name(),
                            vp.table.key(),
                            vp.table.id(),
                            vp.table.eventTime(),
                            vp.table.buckets()));
        }
        plan.manifests.forEach(m -> s.append("hour ").append(m).append('\n'));
        return sha256(s.toString().getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------------------------------
    // Computing: one task per (view, bucket)

    private static final class Computed {
        final Object[][] values; // [output row][feature]
        final Status[][] status;
        final List<Path> files = new ArrayList<>();
        final Map<String, Map<Status, Long>> statuses = new LinkedHashMap<>();

        Computed(int rows, int features) {
            values = new Object[rows][features];
            status = new Status[rows][features];
        }
    }

    private Computed compute(Spine spine, Request request, Plan plan) throws IOException {
        int rows = plan.rows.length;
        Computed out = new Computed(rows, request.features().size());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Path>>> tasks = new ArrayList<>();
            for (int v = 0; v < plan.views.size(); v++) {
                ViewPlan vp = plan.views.get(v);
                Map<Integer, List<Integer>> byBucket = new HashMap<>();
                for (int i = 0; i < rows; i++) {
                    byBucket.computeIfAbsent(plan.buckets[v][i], b -> new ArrayList<>()).add(i);
                }
                WarehouseEvents warehouse =
                        new WarehouseEvents(
                                vp.table, Path.of(config.tablePath("warehouse", vp.table.name())));
                for (var e : byBucket.entrySet()) {
                    tasks.add(
                            pool.submit(
                                    () ->
                                            bucket(
                                                    vp,
                                                    warehouse,
                                                    e.getKey(),
                                                    e.getValue(),
                                                    plan,
                                                    out)));
                }
            }
            for (Future<List<Path>> t : tasks) {
                out.files.addAll(t.get());
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            pool.shutdownNow();
        }
        out.files.sort(null);
        for (FeatureRef ref : request.features()) {
            out.statuses.put(ref.toString(), new EnumMap<>(Status.class));
        }
        for (int i = 0; i < rows; i++) {
            for (int c = 0; c < request.features().size(); c++) {
                out.statuses
                        .get(request.features().get(c).toString())
                        .merge(out.status[i][c], 1L, Long::sum);
            }
        }
        return out;
    }

    /** The values of one view for the rows of one bucket; returns the files it read. */
    private static List<Path> bucket(
            ViewPlan vp,
            WarehouseEvents warehouse,
            int bucket,
            List<Integer> rows,
            Plan plan,
            Computed out)
            throws IOException {
        long hour = HourPartitioner.hourMillis();
        TreeSet<Long> hours = new TreeSet<>();
        Map<String, List<EventEntry>> events = new HashMap<>();
        for (int i : rows) {
            long from = Windows.floor(plan.times[i], vp.view.tileMillis()) - vp.longest;
            hours.addAll(vp.hours.subSet(Windows.floor(from, hour), true, plan.times[i], false));
            events.computeIfAbsent(plan.keys[i], k -> new ArrayList<>());
        }
        List<Path> files = new ArrayList<>();
        for (long h : hours) {
            Path file = warehouse.bucketFile(h, bucket);
            if (file != null) {
                files.add(file);
                warehouse.scan(file, vp.view, events.keySet(), (k, e) -> events.get(k).add(e));
            }
        }
        // Hours in order, each file sorted by (key, time, id): each entity's events are ordered.
        Map<String, EntityTiles> tiles = new HashMap<>();
        events.forEach(
                (k, list) -> {
                    EntityTiles t = new EntityTiles(vp.view.tileMillis(), vp.view.coarseMillis());
                    t.addAll(list);
                    tiles.put(k, t);
                });
        // Rows of one entity together, so its tile partials are merged once for all of them.
        List<Integer> ordered = new ArrayList<>(rows);
        ordered.sort((a, b) -> plan.keys[a].compareTo(plan.keys[b]));
        String current = null;
        CachingTileReader reader = null;
        for (int i : ordered) {
            if (!plan.keys[i].equals(current)) {
                current = plan.keys[i];
                reader = new CachingTileReader(tiles.get(current));
            }
            for (int f = 0; f < vp.features.size(); f++) {
                FeatureDef def = vp.features.get(f);
                FeatureValue value =
                        Windows.value(
                                def,
                                plan.times[i],
                                vp.view.tileMillis(),
                                vp.view.coarseMillis(),
                                reader);
                int column = vp.columns.get(f);
                out.values[i][column] = value.value();
                out.status[i][column] = value.status();
            }
        }
        return files;
    }

    // ---------------------------------------------------------------------------------------
    // Writing

    /** The output schema: the spine's columns, then {@code <view>__<feature>} in request order. */
    static Schema schema(Spine spine, Request request, List<FeatureDef> defs) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : spine.schema().getFields()) {
            fields.add(new Schema.Field(f.name(), f.schema(), f.doc(), f.defaultVal()));
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < defs.size(); i++) {
            FeatureRef ref = request.features().get(i);
            String name = ref.view() + "__" + ref.feature();
            if (spine.schema().getField(name) != null) {
                throw new IllegalArgumentException(
                        "--spine: its column '" + name + "' would clash with feature " + ref);
            }
            names.add(name);
            fields.add(
                    new Schema.Field(
                            name,
                            Schema.createUnion(
                                    Schema.create(Schema.Type.NULL), defs.get(i).valueSchema()),
                            defs.get(i).agg().name().toLowerCase() + " at the row's time",
                            JsonProperties.NULL_VALUE));
        }
        if (request.statusColumns()) {
            for (String name : names) {
                fields.add(
                        new Schema.Field(
                                name + "__status",
                                Schema.create(Schema.Type.STRING),
                                "OK, or why the value is null"));
            }
        }
        return Schema.createRecord("training_set", null, "io.sluice.training", false, fields);
    }

    private void write(Spine spine, Request request, Plan plan, Computed computed, Path file)
            throws IOException {
        List<FeatureDef> defs = new ArrayList<>();
        for (FeatureRef ref : request.features()) {
            defs.add(
                    plan.views.stream()
                            .filter(v -> v.view.name().equals(ref.view()))
                            .findFirst()
                            .orElseThrow()
                            .view
                            .feature(ref.feature()));
        }
        Schema schema = schema(spine, request, defs);
        int spineColumns = spine.schema().getFields().size();
        int features = defs.size();
        try (ParquetWriter<GenericRecord> writer =
                AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                        .withConf(new PlainParquetConfiguration())
                        .withDataModel(GenericData.get())
                        .withSchema(schema)
                        .withCompressionCodec(CompressionCodecName.ZSTD)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .build()) {
            for (int i = 0; i < plan.rows.length; i++) {
                GenericRecord in = spine.rows().get(plan.rows[i]);
                GenericData.Record row = new GenericData.Record(schema);
                for (int c = 0; c < spineColumns; c++) {
                    row.put(c, in.get(c));
                }
                for (int f = 0; f < features; f++) {
                    row.put(spineColumns + f, computed.values[i][f]);
                    if (request.statusColumns()) {
                        row.put(spineColumns + features + f, computed.status[i][f].name());
                    }
                }
                writer.write(row);
            }
        }
    }

    // ---------------------------------------------------------------------------------------

    private static String fileSha256(Path file) throws IOException {
        MessageDigest md = sha256();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
