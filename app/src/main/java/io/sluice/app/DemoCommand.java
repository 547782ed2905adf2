package io.sluice.app;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice demo}: the whole pipeline on embedded defaults. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Run everything on this machine: an in-process Kafka broker, seeded events, and the"
                        + " jobs on a Flink MiniCluster. Writes DIR/summary.json.")
final class DemoCommand implements Callable<Integer> {

    @Option(
            names = "--events",
            defaultValue = "100000",
            description = "Records to generate (default ${DEFAULT-VALUE}).")
    long events;

    @Option(
            names = "--seed",
            defaultValue = "42",
            description = "Generator seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--data-dir",
            defaultValue = "./data",
            description = "Where raw/, warehouse/ and summary.json go (default ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--storage",
            defaultValue = "file",
            description =
                    "Where the lake lives: file (DIR itself) or s3 (a bucket of an in-process S3"
                            + " server, kept as plain files under DIR/s3/<bucket>/<key>; default"
                            + " ${DEFAULT-VALUE}).")
    String storage;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "Flink parallelism (default ${DEFAULT-VALUE}).")
    int parallelism;

    @Override
    public Integer call() throws Exception {
        if (events < 1) {
            throw new IllegalArgumentException("--events must be at least 1, got " + events);
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException(
                    "--parallelism must be at least 1, got " + parallelism);
        }
        if (!storage.equals("file") && !storage.equals("s3")) {
            throw new IllegalArgumentException(
                    "--storage must be file or s3, got '" + storage + "'");
        }
        Map<String, Object> summary =
                new Demo(dataDir, storage.equals("s3"), events, seed, parallelism, System.out)
                        .run();
        System.out.println("summary: " + dataDir.resolve("summary.json"));
        return Boolean.TRUE.equals(summary.get("ok")) ? 0 : 1;
    }
}
