package io.sluice.app;

import io.sluice.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} command line: every job and tool behind one launcher. */
@Command(
        name = "sluice",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Kafka to an exactly-once event lake and a consistent feature store.",
        subcommands = {
            DemoCommand.class,
            KafkaCommand.class,
            ClusterCommand.class,
            IngestCommand.class,
            CompactCommand.class,
            StopCommand.class,
            DdlCommand.class,
            MaintainCommand.class,
            DescribeCommand.class,
            FeaturesCommand.class,
            GetCommand.class,
            ServeCommand.class,
            CheckCommand.class,
            TrainingSetCommand.class,
            GenerateCommand.class,
            BenchCommand.class
        })
public final class Main {

    public static void main(String[] args) {
        ProcessScratch.install();
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit code; 2 for bad config or arguments. */
    public static int run(String... args) {
        return run(new Main(), null, args);
    }

    /**
     * Runs one of the {@link JobCommands} (the commands a Flink cluster runs from the job jar),
     * with their error output going to {@code err}.
     */
    static int runJob(java.io.PrintWriter err, String... args) {
        return run(new JobCommands(), err, args);
    }

    private static int run(Object root, java.io.PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(root);
        if (err != null) {
            cli.setErr(err);
        }
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    if (e instanceof ConfigException || e instanceof IllegalArgumentException) {
                        commandLine.getErr().println("sluice: " + e.getMessage());
                        return 2;
                    }
                    throw e;
                });
        return cli.execute(args);
    }

    /**
     * The commands that run in a Flink cluster's job manager from the job jar ({@link FlinkEntry}).
     * Only these: building the whole command line reflects on every command, and some (kafka, demo,
     * generate, bench, serve) name classes the job jar leaves out (the in-process broker, the
     * generator, the feature server), which a cluster's class loader cannot find.
     */
    @Command(
            name = "sluice",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            subcommands = {
                IngestCommand.class,
                CompactCommand.class,
                FeaturesCommand.class,
                TrainingSetCommand.class
            })
    static final class JobCommands {}

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"sluice " + (v == null ? "dev" : v)};
        }
    }
}
