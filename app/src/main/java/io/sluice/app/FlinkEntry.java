package io.sluice.app;

import io.sluice.lake.LakeFileSystem;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;

/**
 * Entry point for Flink application mode ({@code entryClass} of a FlinkDeployment) and for jobs
 * submitted to a cluster's REST API ({@code sluice ingest --target}): the commands that run a job
 * ({@link Main.JobCommands}), and nothing that needs a jar besides the job jar. Unlike {@link
 * Main#main}, it never calls {@code System.exit}, which would take the JobManager down with it; a
 * failing command surfaces as an exception instead, whose message carries the command's error. The
 * cluster's file systems are its own ({@link LakeFileSystem#leaveToCluster}): an {@code s3:} lake
 * is reached through the S3 plugin and the {@code s3.*} settings of the deployment.
 */
public final class FlinkEntry {

    private FlinkEntry() {}

    public static void main(String[] args) {
        LakeFileSystem.leaveToCluster();
        StringWriter captured = new StringWriter();
        PrintWriter err = new PrintWriter(new Tee(new PrintWriter(System.err, true), captured));
        int code = Main.runJob(err, args);
        err.flush();
        if (code != 0) {
            throw new IllegalStateException(
                    "sluice " + String.join(" ", args) + " exited " + code + cause(captured));
        }
    }

    /** The command's own error line (e.g. {@code sluice: --fresh and ...}), if it printed one. */
    private static String cause(StringWriter captured) {
        String why = "";
        for (String line : captured.toString().lines().toList()) {
            if (line.startsWith("sluice: ")) {
                why = line.substring("sluice: ".length());
            } else if (why.isEmpty() && !line.isBlank()) {
                why = line.strip();
            }
        }
        return why.isEmpty() ? "" : ": " + why;
    }

    /** Writes to two writers. */
    private static final class Tee extends Writer {
        private final Writer a;
        private final Writer b;

        Tee(Writer a, Writer b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(char[] buf, int off, int len) {
            try {
                a.write(buf, off, len);
                b.write(buf, off, len);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void flush() {
            try {
                a.flush();
                b.flush();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            flush();
        }
    }
}
