package io.sluice.app;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.OnlineConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.backfill.Backfill;
import io.sluice.features.backfill.BackfillPlan;
import io.sluice.features.job.FeaturesJob;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice features}: the streaming features job, as deployed. */
@Command(
        name = "features",
        mixinStandardHelpOptions = true,
        description = {
            "Run the features job: each feature view's source topic, through the ingest"
                    + " job's parse and de-duplicate path, into tiles in the online store and"
                    + " the offline feature log.",
            "It resumes from the newest checkpoint an earlier run retained (or"
                    + " --from-savepoint). Without state over a non-empty online store it"
                    + " refuses to start, unless --rebuild clears the views' tiles and reads"
                    + " the topics again from their earliest offsets.",
            "With --backfill --from --to it runs the same operators in batch over the"
                    + " warehouse hours in [--from, --to) instead, and replaces the feature log"
                    + " of those hours (the online store is not written)."
        })
final class FeaturesCommand extends StreamingJobCommand {

    @Option(
            names = "--backfill",
            description =
                    "Rebuild the offline feature log of [--from, --to) from the warehouse, in"
                            + " batch; every landing hour in range must be complete and"
                            + " compacted.")
    boolean backfill;

    @Mixin HourRange range;

    @Option(
            names = "--rebuild",
            description =
                    "Start without state and rebuild the online store: delete every tile of"
                            + " the views, then read each topic from its earliest retained"
                            + " offset. Features whose windows reach before that offset are"
                            + " under-counted until the window passes it.")
    boolean rebuild;

    @Option(
            names = "--online",
            description =
                    "Serve from this Redis (redis://host:port, or a cluster's seed nodes as"
                            + " redis-cluster://host:port,host:port) instead of the config's"
                            + " online store: how a deployment points the job at the cluster's"
                            + " Redis.")
    URI online;

    @Override
    SluiceConfig adjust(SluiceConfig config) {
        if (online == null) {
            return config;
        }
        return new SluiceConfig(
                config.kafka(),
                config.storage(),
                OnlineConfig.redis("--online", online),
                config.checkpoint(),
                config.tables(),
                config.featureViews());
    }

    @Override
    public Integer call() throws Exception {
        if (!backfill) {
            if (rebuild && fromSavepoint != null) {
                throw new IllegalArgumentException(
                        "--rebuild and --from-savepoint exclude each other: a rebuild starts"
                                + " without state");
            }
            fresh |= rebuild;
            if (!range.isEmpty()) {
                throw new IllegalArgumentException(
                        (range.from != null ? "--from" : "--to")
                                + " is only for --backfill; the streaming job reads from its"
                                + " committed Kafka offsets");
            }
            return super.call();
        }
        if (!target.parse().local()) {
            throw new IllegalArgumentException(
                    "--target cannot be used with --backfill: a backfill runs as a batch job in"
                            + " this process; --target is for the streaming job");
        }
        if (bounded) {
            throw new IllegalArgumentException(
                    "--bounded cannot be used with --backfill: a backfill reads the warehouse"
                            + " and always ends");
        }
        if (online != null) {
            throw new IllegalArgumentException(
                    "--online cannot be used with --backfill: a backfill writes no online store");
        }
        if (range.from == null || range.to == null) {
            throw new IllegalArgumentException(
                    "--backfill needs both --from and --to (missing "
                            + (range.from == null ? "--from" : "--to")
                            + ")");
        }
        Instant start = range.from().orElseThrow();
        Instant end = range.to().orElseThrow();
        if (!start.isBefore(end)) {
            throw new IllegalArgumentException("--from " + start + " must be before --to " + end);
        }
        SluiceConfig cfg = config.load();
        BackfillPlan plan = BackfillPlan.of(cfg, start, end);
        Backfill.Result result;
        // The job's rows read, from its accumulator, of the manifests' rows in range.
        try (Progress progress =
                Progress.start(
                        "backfill",
                        "events read",
                        Backfill.events(cfg, plan),
                        spec.commandLine().getOut())) {
            result =
                    Backfill.run(
                            Backfill.environment(),
                            cfg,
                            plan,
                            (done, total) -> progress.update(done));
        }
        print(result, spec.commandLine().getOut());
        return 0;
    }

    static void print(Backfill.Result result, PrintWriter out) {
        for (Backfill.ViewResult v : result.views()) {
            out.printf(
                    "%s: %,d rows in %d hours; %d hours without rows removed%n",
                    v.view(), v.rows(), v.hoursWritten(), v.hoursRemoved());
        }
        out.printf(
                "backfill %s: %d hours, %,d feature log rows in %d views%n",
                result.range(), result.hours(), result.rows(), result.views().size());
        out.flush();
    }

    @Override
    String job() {
        return "features";
    }

    @Override
    void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded) {
        FeaturesJob.define(env, config, bounded, rebuild);
    }

    /**
     * Warns when the online store could lose writes it acknowledged: the job counts a tile written
     * once the store takes it, and nothing writes it again unless it changes.
     */
    @Override
    void beforeExecute(SluiceConfig config) {
        try (OnlineStore store = OnlineStores.open(config.online())) {
            for (String risk : store.durabilityRisks()) {
                warn(
                        risk
                                + ". The features job counts a tile as written once the store"
                                + " acknowledges it: after such a loss, rebuild the store with"
                                + " --rebuild (README, \"Restarts, state and faults\")");
            }
        } catch (IOException e) {
            warn(
                    "could not read how the online store persists its writes ("
                            + e.getMessage()
                            + "); for exact online values it must keep every write it"
                            + " acknowledges (Redis: appendonly yes, appendfsync always)");
        }
    }

    @Override
    Optional<String> existingOutput(SluiceConfig config) throws IOException {
        List<String> views = new ArrayList<>();
        try (OnlineStore store = OnlineStores.open(config.online())) {
            for (FeatureViewConfig v : config.featureViews()) {
                // Tiles from a run that never completed a checkpoint committed no offsets either:
                // a new run reads the same events from the same start, and counts the same.
                if (store.hasTiles(v.name()) && hasCommittedOffsets(config, v)) {
                    views.add(v.name());
                }
            }
        }
        return views.isEmpty()
                ? Optional.empty()
                : Optional.of(
                        "the online store holds tiles of "
                                + String.join(", ", views)
                                + " counted up to offsets an earlier run committed");
    }

    /** Whether the view's consumer group has committed offsets, i.e. a run checkpointed. */
    private static boolean hasCommittedOffsets(SluiceConfig config, FeatureViewConfig view)
            throws IOException {
        Map<String, Object> props = new HashMap<>();
        config.kafka().properties().forEach((k, v) -> props.put(String.valueOf(k), v));
        props.put("bootstrap.servers", config.kafka().bootstrap());
        String group = config.kafka().group() + "-" + FeaturesJob.job(view);
        try (Admin admin = Admin.create(props)) {
            return !admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .isEmpty();
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException(
                    "cannot read the committed offsets of consumer group "
                            + group
                            + " from Kafka at "
                            + config.kafka().bootstrap()
                            + ": "
                            + e,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /**
     * A job without state counts each tile from zero, while the store holds the counts of every
     * event before the committed offsets: its writes would lose the compare-and-set, or win it with
     * too few events. So it either rebuilds the store or does not start.
     */
    @Override
    void startingWithoutState(SluiceConfig config, String output) throws IOException {
        if (!rebuild) {
            throw new IllegalArgumentException(
                    "the features job has no state to start from, but "
                            + output
                            + ": counting again from the committed offsets would leave those"
                            + " tiles wrong. Restore its state with --from-savepoint PATH, or"
                            + " rebuild the store with --rebuild");
        }
        try (OnlineStore store = OnlineStores.open(config.online())) {
            for (FeatureViewConfig v : config.featureViews()) {
                long n = store.clear(v.name());
                warn("--rebuild: deleted " + n + " tiles of " + v.name());
            }
        }
    }

    @Override
    String withoutState() {
        return "rebuild the store with --rebuild (deletes the views' tiles and reads the topics"
                + " again from their earliest offsets)";
    }
}
