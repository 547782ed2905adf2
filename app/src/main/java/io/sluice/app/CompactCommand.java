package io.sluice.app;

import io.sluice.compact.CompactJob;
import io.sluice.compact.HourCompactor;
import io.sluice.config.Durations;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LandingScan;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.CloseableIterator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice compact}: completed landing hours into the bucketed, sorted Parquet warehouse. */
@Command(
        name = "compact",
        mixinStandardHelpOptions = true,
        description = {
            "Run the compact job: complete Avro landing hours into bucketed, sorted Parquet.",
            "Without --continuous it is a bounded run over the hours in [--from, --to) (all"
                    + " complete hours by default) that are missing or stale in the warehouse,"
                    + " and exits 1 if any hour failed."
        })
final class CompactCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Mixin HourRange range;

    @Option(
            names = "--force",
            description = "Rewrite hours that are up to date too (range runs only).")
    boolean force;

    @Option(
            names = "--continuous",
            description = "Run forever, compacting hours as they complete or are re-opened.")
    boolean continuous;

    @Option(
            names = "--interval",
            defaultValue = "30s",
            description = "How often the continuous job looks for stale hours (default: 30s).")
    String interval;

    @Option(
            names = "--strict",
            description =
                    "Exit 1 if a landing hour has committed data but no manifest covering it"
                            + " although it ended more than its allowed lateness ago.")
    boolean strict;

    @Override
    public Integer call() throws Exception {
        CompactJob.Options options =
                new CompactJob.Options(
                        range.from(),
                        range.to(),
                        force,
                        continuous,
                        duration("--interval", interval));
        SluiceConfig cfg = config.load();
        PrintWriter out = spec.commandLine().getOut();
        int overdue = reportOverdue(cfg, System.currentTimeMillis(), out);
        if (continuous) {
            // The job keeps no state of its own; resuming only spares its trigger a restart.
            RetainedCheckpoints retained =
                    new RetainedCheckpoints(Jobs.checkpointDir(cfg, "compact"));
            var latest = retained.latest();
            retained.removeAllBut(latest.map(RetainedCheckpoints.Checkpoint::jobDir));
            StartPoint start =
                    latest.map(c -> StartPoint.checkpoint(c.path().toString()))
                            .orElse(StartPoint.FRESH);
            StreamExecutionEnvironment env = Jobs.environment(cfg, "compact", start);
            CompactJob.define(env, cfg, options).sinkTo(new DiscardingSink<>()).name("results");
            env.execute("sluice-compact");
            return 0;
        }
        StreamExecutionEnvironment env = Jobs.environment(cfg, "compact");
        int code =
                report(
                        CompactJob.define(env, cfg, options),
                        CompactJob.pendingHours(cfg, options),
                        out);
        return code == 0 && strict && overdue > 0 ? 1 : code;
    }

    /**
     * Prints every landing hour whose committed data no manifest covers although the hour ended
     * more than its allowed lateness before {@code now}: compaction cannot see such an hour, and
     * without this it would be silently missing from the warehouse. Returns how many.
     */
    static int reportOverdue(SluiceConfig cfg, long now, PrintWriter out) throws IOException {
        int overdue = 0;
        for (TableConfig t : cfg.tables()) {
            for (LandingScan.Hour h :
                    LandingScan.scan(
                            new org.apache.flink.core.fs.Path(cfg.tablePath("raw", t.name())))) {
                long due =
                        h.hourStart()
                                + HourPartitioner.hourMillis()
                                + t.allowedLateness().toMillis();
                if (h.unpublished() && due < now) {
                    overdue++;
                    out.printf(
                            "%s %s: NOT COMPLETE: %d committed files, %s, although the hour"
                                    + " ended more than its allowed lateness (%s) ago; the"
                                    + " ingest job publishes the manifest once its watermark"
                                    + " passes (is it running and are its topics receiving"
                                    + " events?)%n",
                            t.name(),
                            h.partition(),
                            h.committed().size(),
                            h.manifested() == null ? "no _SUCCESS" : "some not in its _SUCCESS",
                            Durations.format(t.allowedLateness()));
                }
            }
        }
        out.flush();
        return overdue;
    }

    /**
     * Runs a bounded compaction of about {@code hours} hours, prints one line per hour and a total;
     * 1 if an hour failed.
     */
    static int report(DataStream<HourCompactor.Result> results, long hours, PrintWriter out)
            throws Exception {
        long compacted = 0;
        long failed = 0;
        long rows = 0;
        try (CloseableIterator<HourCompactor.Result> it =
                        results.executeAndCollect("sluice-compact");
                Progress progress = Progress.start("compact", "hours", hours, out)) {
            while (it.hasNext()) {
                HourCompactor.Result r = it.next();
                switch (r.outcome()) {
                    case COMPACTED -> {
                        compacted++;
                        rows += r.rows();
                        progress.println(
                                String.format(
                                        "%s %s: %,d rows in %d files, %,d duplicates removed",
                                        r.table(),
                                        r.partition(),
                                        r.rows(),
                                        r.files(),
                                        r.duplicatesRemoved()));
                    }
                    case FAILED -> {
                        failed++;
                        progress.println(
                                String.format(
                                        "%s %s: FAILED: %s", r.table(), r.partition(), r.error()));
                    }
                    default -> {}
                }
                progress.advance(1);
            }
        }
        out.printf(
                "compact: %d hours compacted (%,d rows), %d failed; every other complete hour in"
                        + " range was already up to date%n",
                compacted, rows, failed);
        out.flush();
        return failed == 0 ? 0 : 1;
    }

    static Duration duration(String option, String text) {
        try {
            return io.sluice.config.Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }
}
