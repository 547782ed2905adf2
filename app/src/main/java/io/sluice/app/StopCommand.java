package io.sluice.app;

import io.sluice.config.SluiceConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "stop",
        mixinStandardHelpOptions = true,
        description = {
            "Stop a job running on a Flink cluster with a savepoint, as the Flink Kubernetes"
                    + " Operator does for a savepoint upgrade, and print the savepoint's location."
                    + " Start the changed job from it with `--from-savepoint LOCATION`.",
            "Which changes a savepoint carries over is in the README's deployment section."
        })
final class StopCommand implements Callable<Integer> {

    @Mixin ConfigFile config;

    @Option(
            names = "--target",
            required = true,
            paramLabel = "HOST:PORT",
            description = "The REST endpoint of the Flink cluster the job runs on.")
    String target;

    @Option(
            names = "--savepoint-dir",
            paramLabel = "URI",
            description =
                    "Where the savepoint goes (default: <storage root>/_flink/savepoints/JOB).")
    String savepointDir;

    @Option(
            names = "--drain",
            description =
                    "End the sources first, so every window and timer fires: for a job that will"
                            + " not be resumed. A job to be upgraded must not drain.")
    boolean drain;

    @Option(
            names = "--timeout",
            defaultValue = "5m",
            paramLabel = "DURATION",
            description = "How long to wait for the savepoint (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Parameters(paramLabel = "JOB", description = "The job: ingest, features or compact.")
    String job;

    private static final java.util.List<String> JOBS =
            java.util.List.of("ingest", "features", "compact");

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (!JOBS.contains(job)) {
            throw new IllegalArgumentException(
                    "JOB must be one of " + String.join(", ", JOBS) + ", got " + job);
        }
        FlinkTarget where = FlinkTarget.parse(target, null);
        if (where.local()) {
            throw new IllegalArgumentException(
                    "--target must name a Flink cluster's REST endpoint (HOST:PORT), got local");
        }
        Duration wait = CompactCommand.duration("--timeout", timeout);
        SluiceConfig cfg = config.load();
        String dir =
                savepointDir != null ? savepointDir : cfg.rootUri() + "/_flink/savepoints/" + job;
        FlinkRest rest = new FlinkRest(where.restUri());
        Map<String, String> running;
        try {
            running = rest.runningJobs();
        } catch (FlinkRest.Unreachable e) {
            throw new IllegalArgumentException("--target: " + e.getMessage(), e);
        }
        String jobId = running.get("sluice-" + job);
        if (jobId == null) {
            throw new IllegalArgumentException(
                    "no job sluice-"
                            + job
                            + " runs on "
                            + rest.base()
                            + (running.isEmpty()
                                    ? " (no job runs there)"
                                    : " (running: " + String.join(", ", running.keySet()) + ")"));
        }
        PrintWriter err = spec.commandLine().getErr();
        err.printf(
                "sluice stop: stopping sluice-%s (%s) with a savepoint in %s%n", job, jobId, dir);
        err.flush();
        String location = rest.stopWithSavepoint(jobId, dir, drain, wait);
        err.printf(
                "sluice stop: sluice-%s stopped; start it again with: sluice %s --config %s"
                        + " --target %s --from-savepoint %s%n",
                job, job, config.path, target, location);
        err.flush();
        spec.commandLine().getOut().println(location);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
