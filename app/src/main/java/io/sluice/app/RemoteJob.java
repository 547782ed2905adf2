package io.sluice.app;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A command run on a Flink cluster instead of in this process ({@code --target HOST:PORT}): the job
 * jar is uploaded through the cluster's REST API and its {@link FlinkEntry} is run there with the
 * same command line, as the Flink Kubernetes Operator runs a jar. The command's main then runs in
 * the job manager and its job in the task managers, all loaded from the jar by Flink's user-code
 * class loader. Paths on the command line are made absolute first: the cluster's processes have
 * another working directory (and must see the same files, as they do on one machine).
 */
final class RemoteJob {

    /** The system property, then the environment variable, naming the job jar to submit. */
    static final String JAR_PROPERTY = "sluice.job.jar";

    static final String JAR_ENV = "SLUICE_JOB_JAR";

    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration UNTIL_RUNNING = Duration.ofMinutes(3);

    private RemoteJob() {}

    /**
     * Submits the command {@code spec} parsed, without its {@code --target}, to {@code target}.
     * With {@code untilEnd} it waits for the job to end and returns 0 if it finished, 1 otherwise;
     * without, it returns 0 once the job runs (a streaming job runs until cancelled).
     */
    static int run(FlinkTarget target, CommandSpec spec, boolean untilEnd) throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        String command = spec.name();
        Path jar = jobJar();
        FlinkRest rest = new FlinkRest(target.restUri());
        List<String> args = programArgs(spec);
        err.printf(
                "sluice %s: submitting %s (%,d MB) to the Flink cluster at %s%n",
                command, jar, Files.size(jar) >> 20, rest.base());
        err.flush();
        String jobId;
        try {
            String jarId = rest.uploadJar(jar);
            try {
                jobId = rest.runJar(jarId, FlinkEntry.class.getName(), args);
            } finally {
                // The submitted job keeps its own copy in the cluster's blob store.
                rest.deleteJar(jarId);
            }
        } catch (FlinkRest.Unreachable e) {
            throw new IllegalArgumentException("--target: " + e.getMessage(), e);
        } catch (IOException e) {
            err.printf(
                    "sluice %s: the cluster at %s did not run it: %s%n",
                    command, rest.base(), e.getMessage());
            err.flush();
            return 1;
        }
        err.printf("sluice %s: job %s submitted to %s%n", command, jobId, rest.base());
        err.flush();
        String state = await(rest, jobId, untilEnd);
        if (untilEnd) {
            err.printf("sluice %s: job %s %s%n", command, jobId, state);
        } else if (state.equals("RUNNING")) {
            err.printf(
                    "sluice %s: job %s is RUNNING on the cluster until cancelled: %s%n",
                    command, jobId, rest.base().resolve("/#/job/running/" + jobId + "/overview"));
        }
        boolean ok = untilEnd ? state.equals("FINISHED") : state.equals("RUNNING");
        if (!ok) {
            err.printf(
                    "sluice %s: job %s is %s: %s%n",
                    command, jobId, state, rest.lastFailure(jobId));
        }
        err.flush();
        return ok ? 0 : 1;
    }

    /** Polls the job's state until it ends, or (without {@code untilEnd}) until it runs. */
    private static String await(FlinkRest rest, String jobId, boolean untilEnd) throws IOException {
        long deadline = System.nanoTime() + UNTIL_RUNNING.toNanos();
        while (true) {
            String state = rest.state(jobId);
            if (FlinkRest.TERMINAL.contains(state)
                    || (!untilEnd && (state.equals("RUNNING") || System.nanoTime() > deadline))) {
                return state;
            }
            try {
                // The REST API has no notification of a job's state changes: poll it.
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while job " + jobId + " was " + state, e);
            }
        }
    }

    /**
     * The command line to run on the cluster: the command and every option given, but {@code
     * --target}, with paths made absolute.
     */
    static List<String> programArgs(CommandSpec spec) {
        List<String> args = new ArrayList<>();
        args.add(spec.name());
        for (OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
            String name = o.longestName();
            if (name.equals("--target")) {
                continue;
            }
            if (o.arity().max() == 0) {
                args.add(name);
                continue;
            }
            for (String value : o.originalStringValues()) {
                args.add(name);
                args.add(
                        o.type() == Path.class || name.equals("--from-savepoint")
                                ? absolute(value)
                                : value);
            }
        }
        return args;
    }

    /** A local path made absolute; a URI with a scheme (s3://, file:) as it is. */
    private static String absolute(String value) {
        try {
            if (new URI(value).getScheme() != null && value.indexOf(':') > 1) {
                return value;
            }
        } catch (URISyntaxException notAUri) {
            // a path with characters a URI cannot hold
        }
        return Path.of(value).toAbsolutePath().normalize().toString();
    }

    /**
     * The shaded job jar: {@value #JAR_PROPERTY}, else {@value #JAR_ENV}, else the jar this class
     * was loaded from (the {@code sluice} launcher runs from {@code app/target/sluice.jar}).
     */
    static Path jobJar() {
        String named = System.getProperty(JAR_PROPERTY, System.getenv(JAR_ENV));
        Path jar = null;
        if (named != null && !named.isBlank()) {
            jar = Path.of(named);
        } else {
            try {
                Path from =
                        Path.of(
                                RemoteJob.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI());
                if (from.getFileName().toString().endsWith(".jar")) {
                    jar = from;
                }
            } catch (URISyntaxException | SecurityException | NullPointerException unknown) {
                // no code source: fall through to the message below
            }
        }
        if (jar == null || !Files.isRegularFile(jar)) {
            throw new IllegalArgumentException(
                    "--target: no job jar to submit"
                            + (jar == null ? "" : " at " + jar)
                            + ": run the ./sluice launcher (its jar is app/target/sluice.jar,"
                            + " built by ./mvnw package) or name the jar in "
                            + JAR_ENV);
        }
        return jar;
    }
}
