package io.sluice.app.bench;

import io.sluice.app.Jobs;
import io.sluice.app.Progress;
import io.sluice.app.ReferenceConfig;
import io.sluice.config.KafkaConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterSerializer;
import io.sluice.event.EventStreams;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import io.sluice.ingest.IngestJob;
import io.sluice.ingest.LandingSink;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.lake.AvroPayloadWriter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FileUtils;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Ingest throughput against a consume-only baseline: the same Kafka source, the same pre-filled
 * topic, the same parallelism, with every record dropped right after the source. The ratio says
 * what parsing, de-duplication and exactly-once landing cost over just reading the topic.
 */
public final class IngestBenchmark {

    private final long events;
    private final int runs;
    private final int parallelism;
    private final PrintStream out;
    private static final java.time.Duration CHECKPOINTS = java.time.Duration.ofSeconds(2);
    private Path checkpoints;

    private final boolean s3;

    public IngestBenchmark(long events, int runs, int parallelism, PrintStream out) {
        this(events, runs, parallelism, false, out);
    }

    /**
     * @param s3 whether to add as many runs landing on an in-process S3 server (S3Proxy), each next
     *     to a run on {@code file:}
     */
    public IngestBenchmark(long events, int runs, int parallelism, boolean s3, PrintStream out) {
        this.events = events;
        this.runs = runs;
        this.parallelism = parallelism;
        this.s3 = s3;
        this.out = out;
    }

    /** Runs the benchmark and returns the markdown section it measured. */
    public String run(Path workDir) throws Exception {
        checkpoints = workDir.resolve("checkpoints");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            SluiceConfig config = ReferenceConfig.writeInto(workDir, kafka.bootstrapServers());
            TableConfig table = config.table("page_views").orElseThrow();
            kafka.createTopics(parallelism, table.topic());
            kafka.createTopics(1, DeadLetterSerializer.topicFor(table.topic()));
            long produced = fill(kafka.bootstrapServers(), table, events, out);
            // One unmeasured round first, so neither job pays for the JIT compiling its path.
            consumeOnly(config, table, produced);
            ingest(config, table, local(workDir.resolve("warm-up")), produced);
            List<Double> baseline = new ArrayList<>();
            List<Double> ingest = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            // The same job with one task per step on the same topic: how ingest scales.
            List<Double> single = new ArrayList<>();
            List<Double> scaling = new ArrayList<>();
            // The ingest job's front alone, cut short after each step: what bounds it here.
            FrontStages.Steps steps = new FrontStages.Steps();
            FrontStages.Front front =
                    new FrontStages.Front(
                            config.kafka(), table, produced, parallelism, CHECKPOINTS, checkpoints);
            try (Progress progress = Progress.start("bench ingest", "runs", runs, out)) {
                for (int run = 1; run <= runs; run++) {
                    Path landing = workDir.resolve("run-" + run);
                    FrontStages.Measured consumed =
                            FrontStages.measure(
                                    produced,
                                    () ->
                                            consumeOnly(
                                                    config.kafka(),
                                                    table,
                                                    produced,
                                                    parallelism,
                                                    checkpoints));
                    FrontStages.Measured landed =
                            FrontStages.measure(
                                    produced,
                                    () -> ingest(config, table, local(landing), produced));
                    baseline.add(consumed.recordsPerSecond());
                    ingest.add(landed.recordsPerSecond());
                    steps.add("consume-only (records discarded after the source)", consumed);
                    front.addCuts(
                            steps,
                            FrontStages.Cut.PARSED,
                            FrontStages.Cut.ROUTED,
                            FrontStages.Cut.DEDUPLICATED);
                    steps.add(
                            "the ingest job: … and land exactly once, dead letters to Kafka",
                            landed);
                    ratios.add(ingest.get(run - 1) / baseline.get(run - 1));
                    if (parallelism > 1) {
                        single.add(
                                ingest(
                                        config,
                                        table,
                                        local(workDir.resolve("single-" + run)),
                                        produced,
                                        1));
                        scaling.add(ingest.get(run - 1) / single.get(run - 1));
                    }
                    progress.println(
                            String.format(
                                    "run %d/%d: consume-only %,.0f rec/s, ingest %,.0f rec/s, ratio"
                                            + " %.2f%s",
                                    run,
                                    runs,
                                    baseline.get(run - 1),
                                    ingest.get(run - 1),
                                    ratios.get(run - 1),
                                    single.isEmpty()
                                            ? ""
                                            : String.format(
                                                    "; parallelism 1 %,.0f rec/s",
                                                    single.get(run - 1))));
                    progress.advance(1);
                }
            }
            String onS3 =
                    s3 ? new IngestOnS3(this, config, table, produced, runs, out).run(workDir) : "";
            return String.join(
                    "\n",
                    "## Ingest: Kafka to the Avro landing zone",
                    "",
                    String.format(
                            "`./sluice bench ingest --events %d --runs %d` drains a pre-filled"
                                + " topic of %,d page-view records (JSON, %d partitions, 2%%"
                                + " duplicates, 2%% invalid) on a local MiniCluster with"
                                + " parallelism %d, after one unmeasured warm-up round. Checkpoints"
                                + " every 2 s; each run is a consume-only job, an ingest job and,"
                                + " above parallelism 1, the ingest job with one task per step, on"
                                + " the same topic.",
                            events, runs, produced, parallelism, parallelism),
                    "",
                    "| measure | median | runs |",
                    "|---|---|---|",
                    BenchmarkReport.row(
                            "consume-only rec/s (same Kafka source, records discarded)",
                            "%,.0f",
                            baseline),
                    BenchmarkReport.row(
                            "ingest rec/s (parse, validate, de-duplicate, land exactly-once)",
                            "%,.0f",
                            ingest),
                    BenchmarkReport.row("**ingest ÷ consume-only** (goal ≥ 0.5)", "%.2f", ratios),
                    single.isEmpty()
                            ? ""
                            : String.join(
                                    "\n",
                                    BenchmarkReport.row(
                                            "ingest rec/s at parallelism 1 (same topic)",
                                            "%,.0f",
                                            single),
                                    BenchmarkReport.row(
                                            "**ingest parallelism " + parallelism + " ÷ 1**",
                                            "%.2f",
                                            scaling)),
                    "",
                    "What bounds it: in each run the ingest job's own front also drains the same"
                        + " topic alone, cut short after a step with its records discarded. Every"
                        + " ingest does these steps for each record, so a cut's ratio is the most"
                        + " an ingest job can reach on this machine, and the steps between two cuts"
                        + " cost the difference. CPU is the process's per record: every thread of"
                        + " the JVM, the in-process broker's included.",
                    "",
                    String.join("\n", steps.table("consume-only")),
                    onS3,
                    "Measured "
                            + Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                            + ".");
        }
    }

    /** Fills the table's topic with {@code events} generated records; returns how many. */
    static long fill(String bootstrap, TableConfig table, long events, PrintStream out) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        long start = System.nanoTime();
        long[] count = {0};
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            new Generator(List.of(table), GeneratorOptions.defaults(events, 1))
                    .run(
                            r -> {
                                producer.send(new ProducerRecord<>(r.topic(), r.key(), r.value()));
                                count[0]++;
                            });
        }
        out.printf(
                "filled %s with %,d records in %.1fs%n",
                table.topic(), count[0], (System.nanoTime() - start) / 1e9);
        return count[0];
    }

    /**
     * Drains the topic with nothing behind the source; returns records per second. The consumer has
     * the table's Kafka properties, as the jobs' sources do ({@code isolation.level:
     * read_committed} in the reference config).
     */
    static double consumeOnly(
            KafkaConfig kafka, TableConfig table, long records, int parallelism, Path checkpoints)
            throws Exception {
        StreamExecutionEnvironment env = Jobs.local(parallelism, CHECKPOINTS, checkpoints);
        KafkaSource<byte[]> source =
                KafkaSource.<byte[]>builder()
                        .setBootstrapServers(kafka.bootstrap())
                        .setProperties(EventStreams.properties(kafka))
                        .setTopics(table.topic())
                        .setGroupId("bench-" + UUID.randomUUID())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .setDeserializer(new ValueBytes())
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "consume-only")
                .sinkTo(new DiscardingSink<>());
        return records / seconds(env.execute("bench-consume-only").getNetRuntime());
    }

    /** The consume-only job at the benchmark's parallelism; returns records per second. */
    double consumeOnly(SluiceConfig config, TableConfig table, long records) throws Exception {
        return consumeOnly(config.kafka(), table, records, parallelism, checkpoints);
    }

    /** Where one ingest run lands, and how it is removed afterwards. */
    record Landing(String uri, Path onDisk) {}

    static Landing local(Path dir) {
        return new Landing(dir.toUri().toString(), dir);
    }

    double ingest(SluiceConfig config, TableConfig table, Landing landing, long records)
            throws Exception {
        return ingest(config, table, landing, records, parallelism);
    }

    /** One ingest run with {@code tasks} tasks per step; returns records per second. */
    private double ingest(
            SluiceConfig config, TableConfig table, Landing landing, long records, int tasks)
            throws Exception {
        StreamExecutionEnvironment env = Jobs.local(tasks, CHECKPOINTS, checkpoints);
        var kafka = config.kafka();
        IngestJob.defineTable(
                env,
                table,
                // The deployed job's source, bounded, from the topic's start in a group of its own.
                EventStreams.source(kafka, table, true, "bench-" + UUID.randomUUID(), true),
                EventStreams.deadLetterSink(kafka, table),
                new LandingSink(
                        landing.uri(),
                        table.name(),
                        table.schema(),
                        AvroPayloadWriter.CODEC,
                        table.allowedLateness()));
        double rate = records / seconds(env.execute("bench-ingest").getNetRuntime());
        FileUtils.deleteFileOrDirectory(landing.onDisk().toFile());
        return rate;
    }

    static double seconds(long millis) {
        return millis / 1000.0;
    }

    /** The consume-only deserializer: hands on the value bytes and nothing else. */
    static final class ValueBytes implements KafkaRecordDeserializationSchema<byte[]> {
        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<byte[]> out) {
            out.collect(record.value());
        }

        @Override
        public TypeInformation<byte[]> getProducedType() {
            return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
        }
    }
}
