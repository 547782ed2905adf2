package io.sluice.app.bench;

import io.sluice.compact.HourCompactor;
import io.sluice.config.TableConfig;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LakeFiles;
import io.sluice.s3.LocalS3;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code bench compact --storage s3}: the compaction of the benchmark's hour on an in-process S3
 * server, beside the plain rewrite and the compaction on {@code file:} of the same round.
 */
final class CompactionOnS3 {

    private final TableConfig table;
    private final String partition;
    private final long rows;
    private final int runs;
    private final PrintStream out;

    CompactionOnS3(TableConfig table, String partition, long rows, int runs, PrintStream out) {
        this.table = table;
        this.partition = partition;
        this.rows = rows;
        this.runs = runs;
        this.out = out;
    }

    /**
     * As many rounds again, after the measured ones: the plain rewrite, the compaction on {@code
     * file:} and the compaction on S3 (S3Proxy in this JVM, its objects plain files in the work
     * directory), of the same hour; one unmeasured S3 compaction first. Each S3 compaction gets a
     * fresh copy of the landing hour under its own prefix, so that it uploads every bucket file (a
     * repeat in place would find them there).
     */
    String run(Path workDir, Path rawHour, Path plain, HourCompactor onFile, int cores)
            throws Exception {
        try (LocalS3 server = LocalS3.start(workDir.resolve("s3"), "lake")) {
            LakeFileSystem.initialize(server.storage("bench"), server.env());
            CompactionBenchmark.compactionRate(
                    HourCompactor.builder(table, upload(server, "warm-up", rawHour)).build(),
                    partition,
                    rows);
            List<Double> plainRates = new ArrayList<>();
            List<Double> fileRates = new ArrayList<>();
            List<Double> s3One = new ArrayList<>();
            List<Double> s3All = new ArrayList<>();
            List<Double> s3OfPlain = new ArrayList<>();
            List<Double> s3AllOfPlain = new ArrayList<>();
            List<Double> s3OfFile = new ArrayList<>();
            for (int run = 1; run <= runs; run++) {
                plainRates.add(CompactionBenchmark.plainRewriteRate(table, rawHour, plain, rows));
                fileRates.add(CompactionBenchmark.compactionRate(onFile, partition, rows));
                s3One.add(
                        CompactionBenchmark.compactionRate(
                                HourCompactor.builder(table, upload(server, "one-" + run, rawHour))
                                        .build(),
                                partition,
                                rows));
                s3All.add(
                        CompactionBenchmark.compactionRate(
                                HourCompactor.builder(table, upload(server, "all-" + run, rawHour))
                                        .threads(cores)
                                        .build(),
                                partition,
                                rows));
                s3OfPlain.add(s3One.get(run - 1) / plainRates.get(run - 1));
                s3AllOfPlain.add(s3All.get(run - 1) / plainRates.get(run - 1));
                s3OfFile.add(s3One.get(run - 1) / fileRates.get(run - 1));
                out.printf(
                        "S3 run %d/%d: plain rewrite %,.0f rows/s, compaction on file: %,.0f"
                                + " rows/s, on S3 %,.0f rows/s (1 thread), %,.0f rows/s (%d"
                                + " threads)%n",
                        run,
                        runs,
                        plainRates.get(run - 1),
                        fileRates.get(run - 1),
                        s3One.get(run - 1),
                        s3All.get(run - 1),
                        cores);
            }
            return String.join(
                    "\n",
                    "",
                    "With `--storage s3`, as many runs again compact the same hour on an in-process"
                            + " S3 server (S3Proxy over local files, Flink's S3 file system"
                            + " plugin): the landing files are read from it and each bucket file"
                            + " is uploaded under its digest name, the hour's manifest last. Each"
                            + " is next to the same round's plain rewrite and `file:` compaction"
                            + " (one unmeasured S3 compaction first):",
                    "",
                    "| measure | median | runs |",
                    "|---|---|---|",
                    BenchmarkReport.row("plain rewrite rows/s (local files)", "%,.0f", plainRates),
                    BenchmarkReport.row(
                            "compaction on `file:` rows/s, 1 thread", "%,.0f", fileRates),
                    BenchmarkReport.row("compaction on S3 rows/s, 1 thread", "%,.0f", s3One),
                    BenchmarkReport.row(
                            "compaction on S3 rows/s, " + cores + " threads", "%,.0f", s3All),
                    BenchmarkReport.row(
                            "**compaction on S3 (1 thread) ÷ plain rewrite** (goal ≥ 0.7)",
                            "%.2f",
                            s3OfPlain),
                    BenchmarkReport.row(
                            "**compaction on S3 ("
                                    + cores
                                    + " threads) ÷ plain rewrite** (goal ≥ 0.7)",
                            "%.2f",
                            s3AllOfPlain),
                    BenchmarkReport.row(
                            "**compaction on S3 ÷ on `file:`** (1 thread)", "%.2f", s3OfFile),
                    "");
        }
    }

    /** Copies the landing hour to a fresh lake {@code s3://lake/bench-<name>}; returns its root. */
    private URI upload(LocalS3 server, String name, Path rawHour) throws IOException {
        URI root = server.uri("bench-" + name);
        String hour = rawHour.getParent().getParent().relativize(rawHour).toString();
        try (Stream<Path> files = Files.list(rawHour)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                LakeFiles.write(
                        LakeFiles.resolve(
                                root, "raw/" + table.name() + "/" + hour + "/" + f.getFileName()),
                        Files.readAllBytes(f));
            }
        }
        return root;
    }
}
