package io.sluice.app;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.FeatureRefs;
import io.sluice.features.training.TrainingSetBuilder;
import io.sluice.features.training.TrainingSetRequest;
import io.sluice.features.training.TrainingSetResult;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/** The demo's training-set stage: an example spine of the generated entities, and its set. */
final class DemoTrainingSet {

    /** Rows of the example spine. */
    static final int SPINE_ROWS = 1_000;

    private final SluiceConfig config;
    private final Path dir;
    private final long seed;
    private final PrintStream out;

    DemoTrainingSet(SluiceConfig config, Path dir, long seed, PrintStream out) {
        this.config = config;
        this.dir = dir;
        this.seed = seed;
        this.out = out;
    }

    /**
     * Writes an example spine, {@code DIR/spine.csv} ({@code entities} at random times from {@code
     * from}, when the events began, to the end of what the warehouse holds whole, with a made-up
     * label), and builds its training set of every feature into {@code DIR/training_set.parquet}. A
     * later time would be refused: the warehouse does not have its events yet.
     */
    TrainingSetResult build(List<String> entities, Instant from) throws IOException {
        TrainingSetBuilder builder = new TrainingSetBuilder(config);
        long until = System.currentTimeMillis();
        List<String> uncovered = new ArrayList<>();
        for (FeatureViewConfig view : config.featureViews()) {
            Optional<Instant> covered =
                    builder.coveredUntil(config.table(view.source()).orElseThrow());
            if (covered.isPresent()) {
                until = Math.min(until, covered.get().toEpochMilli());
            } else {
                uncovered.add(view.source()); // so few events that none landed in it
            }
        }
        long span = Math.max(1, until - from.toEpochMilli());
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder csv = new StringBuilder("user_id,event_timestamp,label\n");
        for (int i = 0; i < SPINE_ROWS && !entities.isEmpty(); i++) {
            csv.append(entities.get(random.nextInt(entities.size())))
                    .append(',')
                    .append(Instant.ofEpochMilli(from.toEpochMilli() + random.nextLong(span)))
                    .append(',')
                    .append(random.nextInt(2))
                    .append('\n');
        }
        Path spine = dir.resolve("spine.csv");
        Files.writeString(spine, csv);
        List<FeatureReader.FeatureRef> features =
                FeatureRefs.views(config).stream()
                        .flatMap(v -> FeatureRefs.all(v).stream())
                        .toList();
        TrainingSetRequest request = TrainingSetRequest.of(spine, features);
        if (!uncovered.isEmpty()) {
            out.printf(
                    "training-set: no complete hour of %s: its views' features are INCOMPLETE%n",
                    String.join(", ", uncovered));
            request = request.withIncomplete(TrainingSetRequest.Incomplete.MARK);
        }
        TrainingSetResult result = builder.build(request);
        result.export(dir.resolve("training_set.parquet"), false);
        out.printf(
                "training-set: %,d rows x %d features from %,d bucket files -> %s (artifact %s)%n",
                result.rows(),
                features.size(),
                result.filesRead().size(),
                dir.resolve("training_set.parquet"),
                result.digest().substring(0, 12));
        return result;
    }
}
