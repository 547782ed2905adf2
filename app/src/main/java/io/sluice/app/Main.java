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
            IngestCommand.class,
            CompactCommand.class,
            DdlCommand.class,
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
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit code; 2 for bad config or arguments. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
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

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"sluice " + (v == null ? "dev" : v)};
        }
    }
}
