package io.sluice.app.bench;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.LakeFileSystem;
import io.sluice.s3.LocalS3;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bench ingest --storage s3}: the ingest job landing the benchmark's topic on an in-process
 * S3 server, beside the consume-only job and the ingest to {@code file:} of the same round.
 */
record IngestOnS3(
        IngestBenchmark bench,
        SluiceConfig config,
        TableConfig table,
        long produced,
        int runs,
        PrintStream out) {

    /**
     * As many rounds again, after the measured ones: consume-only, ingest to {@code file:} and
     * ingest to S3 (S3Proxy in this JVM, its objects plain files in the work directory), on the
     * same topic, each S3 run landing under a prefix of its own; one unmeasured S3 run first.
     */
    String run(Path workDir) throws Exception {
        try (LocalS3 server = LocalS3.start(workDir.resolve("s3"), "lake")) {
            LakeFileSystem.initialize(server.storage("bench"), server.env());
            bench.ingest(config, table, s3Landing(server, "warm-up"), produced);
            List<Double> baseline = new ArrayList<>();
            List<Double> onFile = new ArrayList<>();
            List<Double> onS3 = new ArrayList<>();
            List<Double> s3Ratios = new ArrayList<>();
            List<Double> s3OfFile = new ArrayList<>();
            for (int run = 1; run <= runs; run++) {
                baseline.add(bench.consumeOnly(config, table, produced));
                onFile.add(
                        bench.ingest(
                                config,
                                table,
                                IngestBenchmark.local(workDir.resolve("file-run-" + run)),
                                produced));
                onS3.add(bench.ingest(config, table, s3Landing(server, "s3-run-" + run), produced));
                s3Ratios.add(onS3.get(run - 1) / baseline.get(run - 1));
                s3OfFile.add(onS3.get(run - 1) / onFile.get(run - 1));
                out.printf(
                        "S3 run %d/%d: consume-only %,.0f rec/s, ingest to file: %,.0f rec/s, to"
                                + " S3 %,.0f rec/s%n",
                        run, runs, baseline.get(run - 1), onFile.get(run - 1), onS3.get(run - 1));
            }
            return String.join(
                    "\n",
                    "",
                    "With `--storage s3`, as many runs again land the same topic on an in-process"
                        + " S3 server (S3Proxy over local files, Flink's S3 file system plugin,"
                        + " multipart uploads committed on checkpoints), each next to the same"
                        + " round's consume-only job and ingest to `file:` (one unmeasured S3 run"
                        + " first):",
                    "",
                    "| measure | median | runs |",
                    "|---|---|---|",
                    BenchmarkReport.row("consume-only rec/s", "%,.0f", baseline),
                    BenchmarkReport.row("ingest to `file:` rec/s", "%,.0f", onFile),
                    BenchmarkReport.row("ingest to S3 rec/s", "%,.0f", onS3),
                    BenchmarkReport.row(
                            "**ingest to S3 ÷ consume-only** (goal ≥ 0.5)", "%.2f", s3Ratios),
                    BenchmarkReport.row("**S3 ÷ `file:`**", "%.2f", s3OfFile),
                    "");
        }
    }

    private static IngestBenchmark.Landing s3Landing(LocalS3 server, String prefix) {
        return new IngestBenchmark.Landing(
                server.uri("bench/" + prefix).toString(), server.objectFile("bench/" + prefix));
    }
}
