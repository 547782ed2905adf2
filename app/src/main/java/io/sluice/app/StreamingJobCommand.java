package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command that runs one of Sluice's Kafka-reading jobs, as deployed or bounded.
 *
 * <p>A job resumes from state by default, the way the Kubernetes operator's {@code last-state}
 * upgrade does: from the newest checkpoint any earlier run of the same job retained, or from a
 * savepoint given with {@code --from-savepoint}. Starting without state over output the job already
 * wrote forgets what it had de-duplicated and counted, so it is refused unless asked for with
 * {@code --fresh}, and then warned about.
 */
abstract class StreamingJobCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Mixin TargetOption target;

    @Option(
            names = "--bounded",
            description = "Stop at the topics' current end offsets instead of running forever.")
    boolean bounded;

    @Option(
            names = "--from-savepoint",
            paramLabel = "PATH",
            description =
                    "Restore from this savepoint or retained checkpoint instead of the newest"
                            + " checkpoint of an earlier run.")
    String fromSavepoint;

    @Option(
            names = "--allow-non-restored-state",
            description =
                    "Restore even if the savepoint or checkpoint holds state of an operator this"
                            + " job no longer has (a removed table or view), dropping that state.")
    boolean allowNonRestoredState;

    @Option(
            names = "--fresh",
            description =
                    "Start without state even if an earlier run left a checkpoint or output. The"
                            + " new run forgets what the old one had de-duplicated.")
    boolean fresh;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            description =
                    "Tasks per step of the job (default: one per core here; in a FlinkDeployment,"
                            + " its parallelism).")
    Integer parallelism;

    /** The job's name, e.g. {@code ingest}: also its checkpoint directory. */
    abstract String job();

    /** Adds the job's pipelines to {@code env}. */
    abstract void define(StreamExecutionEnvironment env, SluiceConfig config, boolean bounded);

    /** The config the job runs with: as loaded, unless a command's options change it. */
    SluiceConfig adjust(SluiceConfig loaded) {
        return loaded;
    }

    /**
     * What the job already wrote that a run without state would disagree with, described for a
     * message (e.g. "raw/ holds 12 landed hours"), or empty if nothing.
     */
    abstract Optional<String> existingOutput(SluiceConfig config) throws IOException;

    /**
     * Called when the job will start without state over {@code output}, which {@code --fresh}
     * allowed: a job may refuse here, or repair what would disagree.
     */
    void startingWithoutState(SluiceConfig config, String output) throws IOException {
        warn(
                "starting WITHOUT state although "
                        + output
                        + " (--fresh): ids the earlier run de-duplicated may land again");
    }

    @Override
    public Integer call() throws Exception {
        if (parallelism != null && parallelism < 1) {
            throw new IllegalArgumentException(
                    "--parallelism must be at least 1, got " + parallelism);
        }
        FlinkTarget where = target.parse();
        if (!where.local()) {
            // Checked here, so that a mistake is reported before anything is uploaded; the job
            // manager decides where the state comes from, as this process would.
            checkOptions();
            SluiceConfig remote = adjust(config.load());
            if (fromSavepoint != null) {
                // The job manager checks it too, but only after the jar is uploaded.
                StreamExecutionEnvironment env =
                        Jobs.environment(remote, job(), StartPoint.savepoint(fromSavepoint));
                define(env, remote, bounded);
                RestoreCheck.check(env, fromSavepoint, allowNonRestoredState, this::warn);
            }
            int exit = RemoteJob.run(where, spec, bounded);
            if (bounded && exit == 0) {
                afterBoundedRun(remote);
            }
            return exit;
        }
        SluiceConfig cfg = adjust(config.load());
        StartPoint start = startPoint(cfg);
        spec.commandLine().getErr().printf("sluice %s: starting %s%n", job(), start.description());
        spec.commandLine().getErr().flush();
        if (allowNonRestoredState) {
            start = start.droppingUnclaimedState();
        }
        StreamExecutionEnvironment env = Jobs.environment(cfg, job(), start);
        if (parallelism != null) {
            env.setParallelism(parallelism);
        }
        define(env, cfg, bounded);
        Optional<String> restoring =
                start.restores() ? Optional.of(start.path()) : clusterRestorePath();
        if (restoring.isPresent()) {
            RestoreCheck.check(env, restoring.get(), allowNonRestoredState, this::warn);
        }
        beforeExecute(cfg);
        JobExecutionResult result = env.execute("sluice-" + job());
        // Submitted through a cluster's REST API (FlinkEntry), the job runs detached and execute()
        // returns at once; the client that submitted it waits for the end and runs this step.
        if (bounded && result.isJobExecutionResult()) {
            afterBoundedRun(cfg);
        }
        return 0;
    }

    /** What the command checks just before it runs the job here; nothing by default. */
    void beforeExecute(SluiceConfig config) {}

    /** What a bounded run does once its job has ended; nothing by default. */
    void afterBoundedRun(SluiceConfig config) throws IOException {}

    /** Decides where the job's state comes from, and cleans up what no start will need again. */
    StartPoint startPoint(SluiceConfig cfg) throws IOException {
        checkOptions();
        if (fromSavepoint != null) {
            return StartPoint.savepoint(fromSavepoint);
        }
        if (clusterRestorePath().isPresent()) {
            return new StartPoint(
                    null,
                    false,
                    false,
                    "from the state the Flink cluster's configuration names: "
                            + clusterRestorePath().get());
        }
        RetainedCheckpoints retained = new RetainedCheckpoints(Jobs.checkpointDir(cfg, job()));
        // A bounded run reads from the committed offsets and leaves the retained state to the
        // job that runs forever: it could not end if it restored that job's Kafka splits.
        Optional<RetainedCheckpoints.Checkpoint> latest =
                bounded ? Optional.empty() : retained.latest();
        if (latest.isPresent() && !fresh) {
            retained.removeAllBut(Optional.of(latest.get().jobDir()));
            return StartPoint.checkpoint(latest.get().path().toString());
        }
        Optional<String> output = existingOutput(cfg);
        if (output.isPresent()) {
            if (!fresh) {
                throw new IllegalArgumentException(
                        "no retained checkpoint of the "
                                + job()
                                + " job under "
                                + Jobs.checkpointDir(cfg, job())
                                + ", but "
                                + output.get()
                                + ". Restore its state with --from-savepoint PATH, or "
                                + withoutState());
            }
            startingWithoutState(cfg, output.get());
        }
        if (!bounded) {
            // Keep the newest checkpoint a --fresh start passes over: it can still be restored.
            retained.removeAllBut(latest.map(RetainedCheckpoints.Checkpoint::jobDir));
        }
        return StartPoint.FRESH;
    }

    /** Fails on options that exclude each other. */
    void checkOptions() {
        if (fromSavepoint != null && fresh) {
            throw new IllegalArgumentException(
                    "--fresh and --from-savepoint exclude each other: choose one");
        }
        if (bounded && fromSavepoint != null) {
            throw new IllegalArgumentException(
                    "--bounded cannot restore --from-savepoint: a restored Kafka split keeps the"
                            + " end offset of the run that saved it (none, for a job that runs"
                            + " forever), so the bounded run would never end");
        }
    }

    /** How to start without state over existing output, and what it costs, for a message. */
    String withoutState() {
        return "start without state with --fresh (ids the earlier run de-duplicated may land"
                + " again; compaction removes repeats within an hour)";
    }

    void warn(String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("sluice " + job() + ": WARNING: " + message);
        err.flush();
    }

    /**
     * The state the cluster's own configuration restores, if any: the Kubernetes operator sets
     * {@code execution.state-recovery.path} for savepoint and last-state upgrades, and that wins.
     */
    private static Optional<String> clusterRestorePath() {
        String dir = System.getenv("FLINK_CONF_DIR");
        return dir == null
                ? Optional.empty()
                : GlobalConfiguration.loadConfiguration(dir)
                        .getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
    }
}
