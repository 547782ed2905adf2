package io.sluice.app.bench;

import io.sluice.app.Progress;
import io.sluice.app.ReferenceConfig;
import io.sluice.compact.HourCompactor;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Compaction of one large landing hour against a plain Avro to Parquet rewrite of the same hour
 * (parquet-java defaults, one file, no de-duplication, bucketing or sorting), and DuckDB point
 * lookups of one key in that hour against both outputs: bytes read (DuckDB's own profiler) and
 * time.
 */
public final class CompactionBenchmark {

    private final long events;
    private final int runs;
    private final PrintStream out;

    private final boolean s3;

    public CompactionBenchmark(long events, int runs, PrintStream out) {
        this(events, runs, false, out);
    }

    /**
     * @param s3 whether to add as many runs compacting on an in-process S3 server (S3Proxy), each
     *     next to a run on {@code file:}
     */
    public CompactionBenchmark(long events, int runs, boolean s3, PrintStream out) {
        this.events = events;
        this.runs = runs;
        this.s3 = s3;
        this.out = out;
    }

    /** Runs the benchmark in {@code workDir} and returns the markdown section it measured. */
    public String run(Path workDir) throws Exception {
        SluiceConfig config = ReferenceConfig.writeInto(workDir, "localhost:9092");
        TableConfig table = config.table("page_views").orElseThrow();
        Path root = Path.of(config.rootUri());
        // Within the table's max_past, so the events pass validation as they would in ingest.
        Instant hourStart = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(3));
        Map<String, Long> landed =
                LandingHours.write(
                        root,
                        table,
                        GeneratorOptions.defaults(events, 42)
                                .withStart(hourStart.plusSeconds(60))
                                .withSpan(Duration.ofMinutes(58))
                                .withRates(0, 0, 0),
                        4,
                        false);
        String partition = HourPartitioner.partition(hourStart.toEpochMilli());
        long rows = landed.get(partition);
        out.printf("landed %,d rows in %s%n", rows, partition);
        Path rawHour = root.resolve("raw").resolve(table.name()).resolve(partition);
        Path plain = workDir.resolve("plain.parquet");
        int cores = Runtime.getRuntime().availableProcessors();
        HourCompactor oneThread = HourCompactor.builder(table, root.toUri()).build();
        HourCompactor allCores = HourCompactor.builder(table, root.toUri()).threads(cores).build();

        // One unmeasured round first, so no side pays for the JIT.
        plainRewrite(table, rawHour, plain);
        oneThread.compact(partition, true);
        allCores.compact(partition, true);
        List<Double> plainRates = new ArrayList<>();
        List<Double> oneRates = new ArrayList<>();
        List<Double> allRates = new ArrayList<>();
        List<Double> oneRatios = new ArrayList<>();
        List<Double> allRatios = new ArrayList<>();
        try (Progress progress = Progress.start("bench compact", "runs", runs, out)) {
            for (int run = 1; run <= runs; run++) {
                double plainRate = plainRewriteRate(table, rawHour, plain, rows);
                double oneRate = compactionRate(oneThread, partition, rows);
                double allRate = compactionRate(allCores, partition, rows);
                plainRates.add(plainRate);
                oneRates.add(oneRate);
                allRates.add(allRate);
                oneRatios.add(oneRate / plainRate);
                allRatios.add(allRate / plainRate);
                progress.println(
                        String.format(
                                "run %d/%d: plain rewrite %,.0f rows/s, compaction on 1 thread"
                                        + " %,.0f rows/s (%.2f), on %d threads %,.0f rows/s (%.2f)",
                                run,
                                runs,
                                plainRate,
                                oneRate,
                                oneRate / plainRate,
                                cores,
                                allRate,
                                allRate / plainRate));
                progress.advance(1);
            }
        }
        HourCompactor compactor = oneThread;
        String onS3 =
                s3
                        ? new CompactionOnS3(table, partition, rows, runs, out)
                                .run(workDir, rawHour, plain, oneThread, cores)
                        : "";

        Path warehouseHour = Path.of(compactor.warehouseHour(partition));
        PointLookups lookups = PointLookups.measure(table, warehouseHour, plain, false);
        PointLookups cached = PointLookups.measure(table, warehouseHour, plain, true);
        long warehouseBytes = sizeOf(warehouseHour, ".parquet");
        long plainBytes = Files.size(plain);
        return String.join(
                "\n",
                "## Compaction: an Avro landing hour to the Parquet warehouse",
                "",
                String.format(
                        "`./sluice bench compact --events %d --runs %d` lands one hour of %,d"
                                + " page views (4 Avro files, %,d distinct users, Zipf) and, in"
                                + " each run, rewrites it three times: a plain Avro to"
                                + " Parquet rewrite (parquet-java defaults: snappy, one file, no"
                                + " de-duplication, bucketing or sorting; one file means one"
                                + " thread) and the compaction (de-duplicate, %d Hive buckets,"
                                + " sort, ZSTD, bloom filter, untruncated statistics, atomic"
                                + " publish), with its bucket files written on one thread and then"
                                + " on all cores. One unmeasured round first.",
                        events, runs, rows, lookups.distinctKeys(), table.buckets()),
                "",
                "| measure | median | runs |",
                "|---|---|---|",
                BenchmarkReport.row("plain rewrite rows/s", "%,.0f", plainRates),
                BenchmarkReport.row(
                        "compaction rows/s, bucket files written on 1 thread", "%,.0f", oneRates),
                BenchmarkReport.row(
                        "compaction rows/s, bucket files written on "
                                + cores
                                + " threads (what the compact job does when one subtask has the"
                                + " machine)",
                        "%,.0f",
                        allRates),
                BenchmarkReport.row(
                        "**compaction (1 thread) ÷ plain rewrite** (goal ≥ 0.7)",
                        "%.2f",
                        oneRatios),
                BenchmarkReport.row(
                        "**compaction (" + cores + " threads) ÷ plain rewrite** (goal ≥ 0.7)",
                        "%.2f",
                        allRatios),
                onS3,
                String.format(
                        "Output: warehouse %,d bytes in %d files, plain copy %,d bytes in one"
                                + " file.",
                        warehouseBytes, countFiles(warehouseHour, ".parquet"), plainBytes),
                "",
                String.format(
                        "DuckDB %s point lookups (`SELECT * … WHERE user_id = ?`) of %d keys"
                                + " spread over the popularity range, %d timed repeats each"
                                + " (medians over all of them); bytes from DuckDB's profiler"
                                + " (`io.total_bytes_read`).",
                        lookups.duckdbVersion(), PointLookups.KEYS, PointLookups.REPEATS),
                "",
                "| lookup of one key in one hour | bytes read (median) | time ms (median) |",
                "|---|---|---|",
                String.format(
                        "| plain copy (unbucketed, unsorted, parquet-java defaults) | %,.0f |"
                                + " %.2f |",
                        lookups.plainBytes(), lookups.plainMillis()),
                String.format(
                        "| warehouse hour, all %d files (`*.parquet`: bloom filters and"
                                + " statistics prune) | %,.0f | %.2f |",
                        table.buckets(), lookups.warehouseBytes(), lookups.warehouseMillis()),
                String.format(
                        "| warehouse hour, the key's bucket file only (what a bucket-aware"
                                + " reader opens) | %,.0f | %.2f |",
                        lookups.bucketBytes(), lookups.bucketMillis()),
                String.format(
                        "| **plain ÷ warehouse, all files** (goal ≥ 10× bytes, ≥ 5× time) |"
                                + " **%.1f×** | **%.1f×** |",
                        lookups.plainBytes() / lookups.warehouseBytes(),
                        lookups.plainMillis() / lookups.warehouseMillis()),
                String.format(
                        "| **plain ÷ warehouse, bucket file** | **%.1f×** | **%.1f×** |",
                        lookups.plainBytes() / lookups.bucketBytes(),
                        lookups.plainMillis() / lookups.bucketMillis()),
                "",
                "The same lookups with DuckDB's Parquet footer cache on (`SET"
                        + " parquet_metadata_cache = true`, what a long-lived reader such as a"
                        + " notebook or service would set; it helps both sides):",
                "",
                "| lookup of one key in one hour, footer cache on | bytes read (median) | time ms"
                        + " (median) |",
                "|---|---|---|",
                String.format(
                        "| plain copy | %,.0f | %.2f |", cached.plainBytes(), cached.plainMillis()),
                String.format(
                        "| warehouse hour, all %d files | %,.0f | %.2f |",
                        table.buckets(), cached.warehouseBytes(), cached.warehouseMillis()),
                String.format(
                        "| warehouse hour, bucket file | %,.0f | %.2f |",
                        cached.bucketBytes(), cached.bucketMillis()),
                String.format(
                        "| **plain ÷ warehouse, all files** (goal ≥ 10× bytes, ≥ 5× time) |"
                                + " **%.1f×** | **%.1f×** |",
                        cached.plainBytes() / cached.warehouseBytes(),
                        cached.plainMillis() / cached.warehouseMillis()),
                String.format(
                        "| **plain ÷ warehouse, bucket file** | **%.1f×** | **%.1f×** |",
                        cached.plainBytes() / cached.bucketBytes(),
                        cached.plainMillis() / cached.bucketMillis()),
                "",
                "Measured " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".");
    }

    /** Rows per second of one {@link #plainRewrite}, after a collection. */
    static double plainRewriteRate(TableConfig table, Path rawHour, Path plain, long rows)
            throws IOException {
        System.gc();
        long start = System.nanoTime();
        plainRewrite(table, rawHour, plain);
        return rows / ((System.nanoTime() - start) / 1e9);
    }

    static double compactionRate(HourCompactor compactor, String partition, long rows)
            throws IOException {
        System.gc();
        long start = System.nanoTime();
        HourCompactor.Result result = compactor.compact(partition, true);
        double rate = rows / ((System.nanoTime() - start) / 1e9);
        if (result.sourceRows() != rows) {
            throw new IllegalStateException("compaction read " + result.sourceRows() + " rows");
        }
        return rate;
    }

    /** The baseline: the same Avro records into one Parquet file with parquet-java defaults. */
    private static void plainRewrite(TableConfig table, Path rawHour, Path target)
            throws IOException {
        Files.deleteIfExists(target);
        try (ParquetWriter<GenericRecord> writer =
                        AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(target))
                                .withSchema(table.schema())
                                .withDataModel(GenericData.get())
                                .withConf(new PlainParquetConfiguration())
                                .build();
                Stream<Path> files = Files.list(rawHour)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".avro")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file);
                        DataFileStream<GenericRecord> stream =
                                new DataFileStream<>(
                                        in, new GenericDatumReader<>(null, table.schema()))) {
                    for (GenericRecord record : stream) {
                        writer.write(record);
                    }
                }
            }
        }
    }

    private static long sizeOf(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            long total = 0;
            for (Path f : files.filter(p -> p.toString().endsWith(suffix)).toList()) {
                total += Files.size(f);
            }
            return total;
        }
    }

    private static long countFiles(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(suffix)).count();
        }
    }
}
