package io.sluice.app;

import io.sluice.compact.CompactJob;
import io.sluice.compact.HourCompactor;
import io.sluice.config.Durations;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.log.FeatureLogTable;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LandingScan;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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

    @Mixin TargetOption target;

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
        FlinkTarget where = target.parse();
        SluiceConfig cfg = config.load();
        PrintWriter out = spec.commandLine().getOut();
        if (!where.local()) {
            return continuous ? RemoteJob.run(where, spec, false) : onCluster(where, cfg, out);
        }
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
            // With its catalog upkeep, it keeps the feature logs' tables up to date too.
            CompactJob.define(env, cfg, options, FeatureLogTable.upkeep(cfg))
                    .sinkTo(new DiscardingSink<>())
                    .name("results");
            env.execute("sluice-compact");
            return 0;
        }
        StreamExecutionEnvironment env = Jobs.environment(cfg, "compact");
        if (spec.root().userObject() instanceof Main.JobCommands) {
            // Run by FlinkEntry in a cluster, whose job client cannot stream results back to this
            // main: the job runs detached, and `compact --target` reports from the warehouse.
            CompactJob.define(env, cfg, options).sinkTo(new DiscardingSink<>()).name("results");
            env.execute("sluice-compact");
            return 0;
        }
        int code =
                report(
                        CompactJob.define(env, cfg, options),
                        CompactJob.pendingHours(cfg, options),
                        out);
        return code == 0 && strict && overdue > 0 ? 1 : code;
    }

    /**
     * A range run on a cluster ({@code --target}): submits the job, waits for it to end, and
     * reports from the warehouse which of the hours that were pending are still stale (failed).
     */
    private int onCluster(FlinkTarget where, SluiceConfig cfg, PrintWriter out) throws Exception {
        int overdue = reportOverdue(cfg, System.currentTimeMillis(), out);
        Set<String> before = pending(cfg, force);
        int code = RemoteJob.run(where, spec, true);
        Set<String> failed = new TreeSet<>(pending(cfg, false));
        failed.retainAll(before);
        for (String hour : failed) {
            out.printf(
                    "%s: FAILED: still stale after the job (see the task manager's log)%n", hour);
        }
        out.printf(
                "compact: %d hours compacted on the cluster, %d failed; every other complete hour"
                        + " in range was already up to date%n",
                before.size() - failed.size(), failed.size());
        out.flush();
        if (code != 0 || !failed.isEmpty()) {
            return 1;
        }
        return strict && overdue > 0 ? 1 : 0;
    }

    /** The hours a range run would compact now, as {@code table dt=…/hr=…}. */
    private Set<String> pending(SluiceConfig cfg, boolean force) throws IOException {
        // As CompactJob.Options gives them to the job's planner.
        Optional<Long> from = range.from().map(i -> HourPartitioner.hourStart(i.toEpochMilli()));
        Optional<Long> to = range.to().map(Instant::toEpochMilli);
        Set<String> hours = new TreeSet<>();
        for (TableConfig t : cfg.tables()) {
            for (String partition :
                    HourCompactor.builder(t, cfg.rootUri()).build().pending(from, to, force)) {
                hours.add(t.name() + " " + partition);
            }
        }
        return hours;
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
