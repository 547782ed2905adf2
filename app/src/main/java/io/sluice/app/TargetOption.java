package io.sluice.app;

import picocli.CommandLine.Option;

/** The {@code --target} option of the commands that run a job: here, or on a Flink cluster. */
final class TargetOption {

    @Option(
            names = "--target",
            defaultValue = "local",
            paramLabel = "local|HOST:PORT",
            description =
                    "Where the job runs: local (a Flink MiniCluster in this process, the default)"
                            + " or the REST endpoint of a Flink cluster, such as the one `sluice"
                            + " cluster` starts. The job jar is uploaded there and the command runs"
                            + " in its job manager; a streaming job is left running, a bounded"
                            + " run is waited for.")
    String target;

    /** The parsed target; an error names {@code --target}. */
    FlinkTarget parse() {
        return FlinkTarget.parse(target, null);
    }
}
