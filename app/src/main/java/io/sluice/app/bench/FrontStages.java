package io.sluice.app.bench;

import io.sluice.app.Jobs;
import io.sluice.config.KafkaConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.DeadLetterRouter;
import io.sluice.event.DuplicateRule;
import io.sluice.event.Event;
import io.sluice.event.EventStreams;
import io.sluice.event.StateKeyTypeInfo;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The jobs' shared front ({@link EventStreams}: the source parsing inside it, the split into valid
 * events and dead letters, the exchange that routes each event by its (id, hour), the
 * de-duplication) run on a benchmark's topic and cut short after one step, its records discarded.
 * Every ingest and features job does these steps for each record, so each cut's rate is the most a
 * job built on it can reach on the machine, and the steps between two cuts cost the difference.
 */
final class FrontStages {

    private FrontStages() {}

    /** Where a run of the front is cut short. */
    enum Cut {
        /**
         * The source parsing each record, then the split; valid events and dead letters dropped.
         */
        PARSED("parse and validate"),
        /** And the exchange to the de-duplication's task, which every record crosses. */
        ROUTED("… and route each event by (id, hour) to its task"),
        /** And the de-duplication, in the ingest job's mode. */
        DEDUPLICATED("… and de-duplicate"),
        /** And the de-duplication in the features job's mode, retracting a superseded copy. */
        DEDUPLICATED_WITH_RETRACTIONS("… and de-duplicate, retracting superseded copies");

        final String label;

        Cut(String label) {
            this.label = label;
        }
    }

    /** A run's records per second, and the process's CPU time per record over it. */
    record Measured(double recordsPerSecond, double cpuMicrosPerRecord) {}

    /**
     * A benchmark's topic and job settings, for runs of the front on it: the topic holds {@code
     * records} records, every run drains it from its start in a group of its own.
     */
    record Front(
            KafkaConfig kafka,
            TableConfig table,
            long records,
            int parallelism,
            Duration checkpointInterval,
            Path checkpoints) {

        /**
         * Measures a run of the front cut after each of {@code cuts} and adds it to {@code steps}.
         */
        void addCuts(Steps steps, Cut... cuts) throws Exception {
            for (Cut cut : cuts) {
                steps.add(cut.label, measure(records, () -> rate(cut)));
            }
        }

        /**
         * Drains the topic through the front, cut after {@code cut}; returns records per second.
         */
        double rate(Cut cut) throws Exception {
            StreamExecutionEnvironment env =
                    Jobs.local(parallelism, checkpointInterval, checkpoints);
            SingleOutputStreamOperator<Event> valid =
                    EventStreams.validated(
                            env,
                            table,
                            EventStreams.source(
                                    kafka, table, true, "bench-" + UUID.randomUUID(), true),
                            "bench");
            valid.getSideOutput(DeadLetterRouter.DEAD_LETTERS).sinkTo(new DiscardingSink<>());
            switch (cut) {
                case PARSED -> valid.sinkTo(new DiscardingSink<>());
                // The de-duplication's own key and key serializer, with no state behind them.
                case ROUTED ->
                        valid.keyBy(DuplicateRule::unit, StateKeyTypeInfo.INSTANCE)
                                .sinkTo(new DiscardingSink<>());
                case DEDUPLICATED ->
                        EventStreams.deduplicated(valid, table, "bench")
                                .sinkTo(new DiscardingSink<>());
                case DEDUPLICATED_WITH_RETRACTIONS ->
                        EventStreams.deduplicated(valid, table, "bench", true)
                                .sinkTo(new DiscardingSink<>());
            }
            return records / IngestBenchmark.seconds(env.execute("bench-" + cut).getNetRuntime());
        }
    }

    /**
     * Runs a job that returns its records per second and measures the process's CPU time per record
     * over it: every thread of this JVM, the in-process broker's included, and the job's start and
     * end. It moves less with the machine's moment than the rate does.
     */
    static Measured measure(long records, Callable<Double> run) throws Exception {
        long before = processCpuNanos();
        double rate = run.call();
        return new Measured(rate, (processCpuNanos() - before) / 1e3 / records);
    }

    /**
     * Runs' measurements of several jobs on the same topic, the baseline's first in each run, as a
     * table of each job's rate, its ratio to the same run's baseline and its CPU per record.
     */
    static final class Steps {
        private final Map<String, List<Measured>> runs = new LinkedHashMap<>();

        /** Adds a run of the job {@code label}; the first label added is the baseline. */
        void add(String label, Measured measured) {
            runs.computeIfAbsent(label, l -> new ArrayList<>()).add(measured);
        }

        /** The table's lines, one row per job in the order first added. */
        List<String> table(String baselineName) {
            List<Measured> baseline = runs.values().iterator().next();
            List<String> lines = new ArrayList<>();
            lines.add(
                    "| steps, each job alone on the same topic | rec/s | ÷ "
                            + baselineName
                            + " | CPU µs per record |");
            lines.add("|---|---|---|---|");
            runs.forEach(
                    (label, measured) -> {
                        List<Double> rates = new ArrayList<>();
                        List<Double> ratios = new ArrayList<>();
                        List<Double> cpu = new ArrayList<>();
                        for (int i = 0; i < measured.size(); i++) {
                            rates.add(measured.get(i).recordsPerSecond());
                            ratios.add(
                                    measured.get(i).recordsPerSecond()
                                            / baseline.get(i).recordsPerSecond());
                            cpu.add(measured.get(i).cpuMicrosPerRecord());
                        }
                        lines.add(
                                "| "
                                        + label
                                        + " | "
                                        + cell(rates, "%,.0f")
                                        + " | "
                                        + cell(ratios, "%.2f")
                                        + " | "
                                        + cell(cpu, "%.1f")
                                        + " |");
                    });
            return lines;
        }

        private static String cell(List<Double> values, String format) {
            return String.format(format, BenchmarkReport.median(values))
                    + " "
                    + BenchmarkReport.runs(values, format);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
