package io.sluice.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.compact.CompactJob;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.features.job.FeaturesJob;
import io.sluice.features.offline.ConsistencyReport;
import io.sluice.features.online.SqliteOnlineStore;
import io.sluice.features.training.TrainingSetResult;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.GeneratorStats;
import io.sluice.ingest.IngestJob;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LandingScan;
import io.sluice.s3.LocalS3;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

/**
 * The whole pipeline on one machine: an in-process Kafka broker, the generator, and the jobs on a
 * Flink MiniCluster, laid out under one data directory as production would be. It checks what
 * landed against what was generated, and ends by serving the online store over HTTP and comparing
 * one request's answer with the training set.
 *
 * <p>With {@code s3} storage the lake lives in a bucket of an in-process S3 server (S3Proxy), whose
 * objects are plain files under {@code DIR/s3/<bucket>/<key>}; the jobs reach it through Flink's S3
 * file system, as they would reach a real object store.
 */
final class Demo {

    private static final List<String> OUTPUTS =
            List.of(
                    "raw",
                    "warehouse",
                    "s3",
                    "features",
                    "online.db",
                    "catalog.db",
                    "summary.json",
                    "sluice.yaml",
                    "training_sets",
                    "spine.csv",
                    "training_set.parquet");

    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
    private static final int TOPIC_PARTITIONS = 2;

    /**
     * (entity, time) samples per feature view: 3 views of 5 to 7 features give over 1,000 values.
     */
    private static final int CHECK_SAMPLES = 100;

    /** The bucket of the in-process S3 server, and the lake's prefix in it. */
    static final String BUCKET = "lake";

    static final String PREFIX = "sluice";

    private final Path dir;
    private final boolean s3;
    private final long events;
    private final long seed;
    private final int parallelism;
    private final PrintStream out;
    private final Map<String, Object> summary = new LinkedHashMap<>();
    private final Map<String, Double> elapsed = new LinkedHashMap<>();
    private final Set<String> validEntities = new HashSet<>();

    /** Where the lake's files are on this machine: the data directory, or the S3 server's files. */
    private Path lake;

    Demo(Path dir, long events, long seed, int parallelism, PrintStream out) {
        this(dir, false, events, seed, parallelism, out);
    }

    /**
     * @param s3 whether the lake is in a bucket of an in-process S3 server rather than in {@code
     *     dir}
     */
    Demo(Path dir, boolean s3, long events, long seed, int parallelism, PrintStream out) {
        this.dir = dir.toAbsolutePath().normalize();
        this.s3 = s3;
        this.events = events;
        this.seed = seed;
        this.parallelism = parallelism;
        this.out = out;
    }

    /** Runs the demo; returns the summary, whose {@code ok} says whether every check held. */
    Map<String, Object> run() throws Exception {
        long begin = System.nanoTime();
        prepareDirectory();
        Path checkpoints = Files.createTempDirectory("sluice-demo-checkpoints-");
        boolean verified;
        SluiceConfig config;
        summary.put("storage", s3 ? "s3" : "file");
        try (LocalS3 server = s3 ? LocalS3.start(dir.resolve("s3"), BUCKET) : null;
                EmbeddedKafka kafka = EmbeddedKafka.start()) {
            if (server != null) {
                Map<String, String> env = new HashMap<>(System.getenv());
                env.putAll(server.env());
                config = ReferenceConfig.writeInto(dir, kafka.bootstrapServers(), server, env);
                LakeFileSystem.initialize(config.storage(), env);
                lake = server.objectFile(PREFIX);
                out.println(
                        "s3: in-process server at "
                                + server.endpoint()
                                + ", lake "
                                + config.rootUri()
                                + " kept in "
                                + lake);
            } else {
                config = ReferenceConfig.writeInto(dir, kafka.bootstrapServers());
                lake = Path.of(config.rootUri());
            }
            createTopics(kafka, config);
            GeneratorStats generated = stage("generate", () -> generate(config));
            stage("ingest", () -> ingest(config, checkpoints));
            stage("compact", () -> compact(config, checkpoints));
            stage("features", () -> features(config, checkpoints));
            stage("check", () -> check(config));
            stage("training-set", () -> trainingSet(config));
            verified =
                    stage(
                            "verify",
                            () ->
                                    DemoVerify.verify(
                                            config,
                                            generated,
                                            validEntities.size(),
                                            DemoTrainingSet.SPINE_ROWS,
                                            summary,
                                            out));
        }
        FileUtils.deleteFileOrDirectory(checkpoints.toFile());
        boolean served = stage("serve", () -> serve(config));
        summary.put("ok", verified && served);
        elapsed.put("total", seconds(begin));
        summary.put("elapsed_seconds", elapsed);
        Files.writeString(
                dir.resolve("summary.json"),
                new ObjectMapper()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(summary));
        return summary;
    }

    private void prepareDirectory() throws IOException {
        Files.createDirectories(dir);
        for (String name : OUTPUTS) {
            FileUtils.deleteFileOrDirectory(dir.resolve(name).toFile());
        }
        out.println("sluice demo: data directory " + dir);
    }

    private void createTopics(EmbeddedKafka kafka, SluiceConfig config) {
        for (TableConfig t : config.tables()) {
            kafka.createTopics(TOPIC_PARTITIONS, t.topic());
            kafka.createTopics(1, DeadLetterSerializer.topicFor(t.topic()));
        }
        out.println("kafka: in-process broker at " + kafka.bootstrapServers());
    }

    private GeneratorStats generate(SluiceConfig config) {
        GeneratorOptions options = GeneratorOptions.defaults(events, seed);
        long step = Math.max(1, events / 4);
        GeneratorStats stats;
        try (KafkaLoader loader = new KafkaLoader(config.kafka().bootstrap(), 0)) {
            stats =
                    new Generator(config.tables(), options)
                            .run(
                                    r -> {
                                        loader.accept(r);
                                        if (r.kind() == GeneratedRecord.Kind.VALID) {
                                            validEntities.add(
                                                    new String(r.key(), StandardCharsets.UTF_8));
                                        }
                                        if (loader.sent() % step == 0) {
                                            out.printf(
                                                    "generate: %,d / %,d records%n",
                                                    loader.sent(), events);
                                        }
                                    });
        }
        summary.put("events_generated", stats.generated());
        summary.put("events_valid", stats.valid());
        summary.put("events_invalid", stats.invalid());
        summary.put("events_duplicate", stats.duplicates());
        summary.put("events_late", stats.late());
        summary.put("event_time_start", options.start().toString());
        summary.put("entities_generated", validEntities.size());
        return stats;
    }

    private Void ingest(SluiceConfig config, Path checkpoints) throws Exception {
        StreamExecutionEnvironment env =
                Jobs.local(parallelism, CHECKPOINT_INTERVAL, checkpoints.resolve("ingest"));
        IngestJob.define(env, config, true);
        JobClient job = env.executeAsync("sluice-ingest");
        long started = System.nanoTime();
        var result = job.getJobExecutionResult();
        while (true) {
            try {
                result.get(2, TimeUnit.SECONDS); // throws with the cause if the job failed
                break;
            } catch (TimeoutException stillRunning) {
                out.printf(
                        "ingest: running %.0fs, %d files committed%n",
                        seconds(started), committedFiles(config));
            }
        }
        IngestJob.publishRemainingHours(config);
        out.printf("ingest: finished, %d files committed%n", committedFiles(config));
        return null;
    }

    private Void compact(SluiceConfig config, Path checkpoints) throws Exception {
        StreamExecutionEnvironment env =
                Jobs.local(parallelism, CHECKPOINT_INTERVAL, checkpoints.resolve("compact"));
        PrintWriter writer = new PrintWriter(out, true);
        int status =
                CompactCommand.report(
                        CompactJob.define(env, config, CompactJob.Options.all()),
                        CompactJob.pendingHours(config, CompactJob.Options.all()),
                        writer);
        if (status != 0) {
            throw new IllegalStateException("compaction failed for some hours; see above");
        }
        return null;
    }

    private Void features(SluiceConfig config, Path checkpoints) throws Exception {
        StreamExecutionEnvironment env =
                Jobs.local(parallelism, CHECKPOINT_INTERVAL, checkpoints.resolve("features"));
        FeaturesJob.define(env, config, true);
        JobClient job = env.executeAsync("sluice-features");
        // Each view's job reads its source topic to the end and commits on every checkpoint.
        Set<String> groups = new HashSet<>();
        try (GroupOffsets offsets = new GroupOffsets(config.kafka().bootstrap())) {
            long records = 0;
            for (FeatureViewConfig view : config.featureViews()) {
                records += offsets.end(Set.of(config.table(view.source()).orElseThrow().topic()));
                groups.add(config.kafka().group() + "-" + FeaturesJob.job(view));
            }
            try (Progress progress =
                    Progress.start("features", "records", records, new PrintWriter(out, true))) {
                progress.await(job.getJobExecutionResult(), () -> committed(offsets, groups));
            }
        }
        try (SqliteOnlineStore store = new SqliteOnlineStore(config.online().sqlitePath())) {
            long entities = store.entities(System.currentTimeMillis());
            summary.put("online_entities", entities);
            out.printf(
                    "features: %,d entities in the online store %s%n",
                    entities, config.online().sqlitePath());
        }
        return null;
    }

    private static long committed(GroupOffsets offsets, Set<String> groups) {
        try {
            return offsets.committed(groups);
        } catch (Exception e) {
            throw new IllegalStateException("reading the features job's offsets: " + e, e);
        }
    }

    private Void check(SluiceConfig config) throws IOException {
        PrintWriter writer = new PrintWriter(out, true);
        List<ConsistencyReport> reports = CheckCommand.run(config, CHECK_SAMPLES, seed, writer);
        long checked = reports.stream().mapToLong(r -> r.checked).sum();
        long problems = CheckCommand.print(reports, writer);
        summary.put("consistency_checked", checked);
        summary.put("consistency_mismatches", problems);
        return null;
    }

    /** Builds the training set of an example spine ({@link DemoTrainingSet}). */
    private Void trainingSet(SluiceConfig config) throws IOException {
        TrainingSetResult result =
                new DemoTrainingSet(config, dir, seed, out)
                        .build(
                                validEntities.stream().sorted().toList(),
                                Instant.parse((String) summary.get("event_time_start")));
        summary.put("training_set_rows", result.rows());
        summary.put("training_set_artifact", result.digest());
        return null;
    }

    /**
     * Serves the online store over HTTP and compares one request's answer with the training set row
     * at the same entity and time; returns whether every value matched.
     */
    private boolean serve(SluiceConfig config) throws Exception {
        var report = new DemoHttpCheck(config, out).run(dir.resolve("training_set.parquet"));
        summary.put("http_check", report);
        return report.path("ok").asBoolean(false);
    }

    private interface Stage<T> {
        T run() throws Exception;
    }

    private <T> T stage(String name, Stage<T> stage) throws Exception {
        long start = System.nanoTime();
        T result = stage.run();
        elapsed.put(name, seconds(start));
        return result;
    }

    private static double seconds(long startNanos) {
        return Math.round((System.nanoTime() - startNanos) / 1e7) / 100.0;
    }

    /** The landing zone's committed data files, over every table. */
    private static long committedFiles(SluiceConfig config) throws IOException {
        long files = 0;
        for (TableConfig t : config.tables()) {
            for (LandingScan.Hour hour :
                    LandingScan.scan(
                            new org.apache.flink.core.fs.Path(config.tablePath("raw", t.name())))) {
                files += hour.committed().size();
            }
        }
        return files;
    }
}
