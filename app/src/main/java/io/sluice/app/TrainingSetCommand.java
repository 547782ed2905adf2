package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.Status;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.features.training.IncompleteDataException;
import io.sluice.features.training.Sample;
import io.sluice.features.training.TrainingSetBuilder;
import io.sluice.features.training.TrainingSetRequest;
import io.sluice.features.training.TrainingSetResult;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice training-set}: point-in-time-correct features for a spine, as Parquet. */
@Command(
        name = "training-set",
        mixinStandardHelpOptions = true,
        description = {
            "Build a point-in-time-correct training set: for each spine row (entity, timestamp,"
                    + " labels...), every requested feature as it was at that timestamp, computed"
                    + " from the warehouse by the library that serves it online.",
            "Output: the spine's columns, then <view>__<feature> per feature in the order given."
                    + " A null value means an empty window (count and sum give 0), an entity"
                    + " with no event in the view's ttl (NOT_FOUND, also a row with an empty key),"
                    + " or, with --incomplete mark, a row the warehouse cannot answer whole"
                    + " (INCOMPLETE).",
            "Views of several entities may be joined (say a user view and an item view): each"
                    + " view reads the spine's column named as its entity.",
            "A row whose time is later than the end of the last complete, compacted hour of a"
                    + " view's source table, or whose window needs an hour still open or not"
                    + " compacted, is never answered from part of the data: by default the request"
                    + " is refused, naming the rows and the hours.",
            "With a catalog, each table's files are read from one snapshot of its Iceberg table:"
                + " the current one, or the one given by --as-of-snapshot, which reads the table as"
                + " it was then, late data compacted since included.",
            "The result is cached under <storage.root>/training_sets/<digest>, the digest covering"
                    + " the spine, the feature definitions, the snapshots and every warehouse hour"
                    + " read; a repeat with the same inputs reuses it. Its _SUCCESS manifest and"
                    + " this command's output name the snapshots read."
        })
final class TrainingSetCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Option(
            names = "--spine",
            required = true,
            description =
                    "Parquet or CSV (with a header) of entity key, timestamp and label columns."
                            + " Each entity column is named as its views' entity (user_id, ...);"
                            + " a row with a null or empty key is NOT_FOUND in that entity's"
                            + " views.")
    Path spine;

    @Option(
            names = "--features",
            required = true,
            split = ",",
            description = "view:feature,... in output order.")
    List<String> features;

    @Option(
            names = "--out",
            required = true,
            description =
                    "The Parquet file to write, or a directory (an existing one, or a path ending"
                            + " in /) to write part-NNNNN.parquet files into, ranges of the spine's"
                            + " rows in its order (replacing the part files already there).")
    String out;

    @Option(
            names = "--parallelism",
            description =
                    "Tasks of the training-set job (default: one per core here, or the cluster's"
                            + " default with --target).")
    Integer parallelism;

    @Option(
            names = "--target",
            defaultValue = "local",
            paramLabel = "local|HOST:PORT",
            description =
                    "Where the job runs: 'local' (default), a Flink cluster in this process; or a"
                            + " Flink cluster's REST endpoint (a session cluster's JobManager),"
                            + " to which the job is submitted with Sluice's jars. The cluster must"
                            + " reach the spine and the lake at the same paths.")
    String target;

    @Option(
            names = "--chunk-rows",
            defaultValue = "" + TrainingSetBuilder.CHUNK_ROWS,
            description =
                    "The most spine rows a task computes at once, with their entities' events"
                            + " (default ${DEFAULT-VALUE}); lower it for tasks with little memory.")
    int chunkRows;

    @Option(
            names = "--timestamp-column",
            defaultValue = TrainingSetBuilder.TIMESTAMP_COLUMN,
            description = "The spine's time column (default ${DEFAULT-VALUE}).")
    String timestampColumn;

    @Option(
            names = "--sample",
            description =
                    "Keep only this fraction of the entities, chosen by a hash of their key"
                            + " (bucket-aligned: only the sampled buckets' files are read). With"
                            + " views of several entities, the entities of the first feature's"
                            + " view.")
    Double sample;

    @Option(
            names = "--seed",
            defaultValue = "0",
            description = "The sample's seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--with-status",
            description =
                    "Also add <view>__<feature>__status (OK, EMPTY_WINDOW, NOT_FOUND or"
                            + " INCOMPLETE) after the features.")
    boolean statusColumns;

    @Option(
            names = "--incomplete",
            defaultValue = "refuse",
            paramLabel = "refuse|mark",
            description =
                    "What to do with rows the warehouse cannot answer whole (a time after the end"
                            + " of the last complete, compacted hour of a view's source table, or a"
                            + " window needing an hour still open or not compacted). 'refuse', the"
                            + " default, fails the request (exit 1) naming how many rows, the first"
                            + " few and the hours: nulls there only because the lake has not caught"
                            + " up would look like missing data to a model. 'mark' keeps them with"
                            + " null features of status INCOMPLETE in those views; every other row"
                            + " is computed as ever.")
    String incomplete;

    @Option(
            names = "--as-of-snapshot",
            paramLabel = "[TABLE=]ID",
            description =
                    "Read TABLE's warehouse as of its Iceberg snapshot ID (as a training set's"
                            + " output or manifest names it), so that a training set built before"
                            + " late data changed an hour is built again the same. TABLE may be"
                            + " left out when the features read one table. Repeat for several"
                            + " tables; tables not named are read as they are now.")
    List<String> asOfSnapshot = List.of();

    @Override
    public Integer call() throws Exception {
        if (sample == null && spec.commandLine().getParseResult().hasMatchedOption("--seed")) {
            throw new IllegalArgumentException("--seed: only with --sample");
        }
        TrainingSetRequest.Incomplete mode =
                switch (incomplete.strip().toLowerCase(Locale.ROOT)) {
                    case "refuse" -> TrainingSetRequest.Incomplete.REFUSE;
                    case "mark" -> TrainingSetRequest.Incomplete.MARK;
                    default ->
                            throw new IllegalArgumentException(
                                    "--incomplete: 'refuse' or 'mark', got '" + incomplete + "'");
                };
        SluiceConfig cfg = config.load();
        List<FeatureRef> refs;
        try {
            refs = FeatureRefs.parse(features);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--features: " + e.getMessage());
        }
        TrainingSetRequest request =
                new TrainingSetRequest(
                        spine,
                        refs,
                        timestampColumn,
                        Optional.ofNullable(sample).map(f -> new Sample(f, seed)),
                        statusColumns,
                        mode);
        request = request.asOf(pins(cfg, refs));
        TrainingSetResult result;
        // Progress of the job's passes, from its accumulators; the total is known once the
        // client's pass over the spine has counted its rows.
        Progress[] progress = new Progress[1];
        try {
            result =
                    new TrainingSetBuilder(
                                    cfg,
                                    FlinkTarget.parse(target, parallelism).environment(),
                                    chunkRows)
                            .withProgress(
                                    (done, total) -> {
                                        if (progress[0] == null) {
                                            progress[0] =
                                                    Progress.start(
                                                            "training-set",
                                                            "rows computed",
                                                            total,
                                                            spec.commandLine().getOut());
                                        }
                                        progress[0].update(done);
                                    })
                            .build(request);
        } catch (IncompleteDataException e) {
            spec.commandLine().getErr().println("sluice training-set: refused: " + e.getMessage());
            return 1;
        } finally {
            if (progress[0] != null) {
                progress[0].close();
            }
        }
        Path outPath = Path.of(out);
        boolean directory = out.endsWith("/") || Files.isDirectory(outPath);
        result.export(outPath, directory);
        PrintWriter w = spec.commandLine().getOut();
        if (result.reused()) {
            w.printf(
                    "training-set: reused artifact %s (same spine, features, snapshots and"
                            + " warehouse hours): %,d rows -> %s%n",
                    result.digest(), result.rows(), out);
        } else {
            w.printf(
                    "training-set: built new artifact %s from %,d bucket files of %,d hours:"
                            + " %,d rows -> %s%n",
                    result.digest(),
                    result.filesRead().size(),
                    result.partitions().size(),
                    result.rows(),
                    out);
            for (Map.Entry<String, Map<Status, Long>> e : result.statuses().entrySet()) {
                w.printf("  %-40s %s%n", e.getKey(), e.getValue());
            }
        }
        // What --as-of-snapshot takes to build this training set again after the tables change.
        for (Map.Entry<String, Long> e : result.snapshots().entrySet()) {
            w.printf("  read %s as of Iceberg snapshot %d%n", e.getKey(), e.getValue());
        }
        w.flush();
        return 0;
    }

    /**
     * {@code --as-of-snapshot}'s pins by table; a bare id pins the one table the features read. An
     * error names the option and the value.
     */
    private Map<String, Long> pins(SluiceConfig cfg, List<FeatureRef> refs) {
        Set<String> tables = new LinkedHashSet<>();
        for (FeatureRef ref : refs) {
            cfg.featureView(ref.view()).ifPresent(v -> tables.add(v.source()));
        }
        Map<String, Long> pins = new LinkedHashMap<>();
        for (String value : asOfSnapshot) {
            int eq = value.indexOf('=');
            String table = eq < 0 ? null : value.substring(0, eq).strip();
            String id = value.substring(eq + 1).strip();
            if (table == null) {
                if (tables.size() != 1) {
                    throw new IllegalArgumentException(
                            String.format(
                                    "--as-of-snapshot %s: the features read %d tables (%s): name"
                                            + " the table, as TABLE=ID",
                                    value, tables.size(), String.join(", ", tables)));
                }
                table = tables.iterator().next();
            }
            long parsed;
            try {
                parsed = Long.parseLong(id);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "--as-of-snapshot " + value + ": not a snapshot id (a whole number)");
            }
            if (pins.put(table, parsed) != null) {
                throw new IllegalArgumentException(
                        "--as-of-snapshot: table " + table + " is pinned twice");
            }
        }
        return pins;
    }
}
