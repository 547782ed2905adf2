package io.sluice.compact;

import io.sluice.catalog.CatalogUpkeep;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.CatalogConfig;
import io.sluice.config.CompactConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compact job. One pipeline serves both modes; only its trigger differs:
 *
 * <pre>
 *   trigger ──► plan (p=1): stale complete hours of every table ──► keyBy(table/hour) ──► compact
 * </pre>
 *
 * <ul>
 *   <li><b>range</b>: one trigger, then the job ends. Hours in {@code [from, to)}; with {@code
 *       force}, up-to-date hours are rewritten too (to the same bytes).
 *   <li><b>continuous</b>: a trigger every {@code interval}, forever. Each finds the hours whose
 *       landing {@code _SUCCESS} differs from the one their warehouse copy was built from,
 *       including hours re-opened by late events.
 * </ul>
 *
 * <p>Compacting an hour is idempotent and its output a pure function of its input, so the job keeps
 * no state: after a failure, a restarted job simply plans again. Keying by hour makes sure that one
 * hour is never compacted by two subtasks at once.
 */
public final class CompactJob {

    private static final Logger LOG = LoggerFactory.getLogger(CompactJob.class);

    private CompactJob() {}

    /**
     * What to compact.
     *
     * @param from first hour (inclusive), or all
     * @param to end hour (exclusive), or open
     * @param force rewrite hours that are up to date (range mode only)
     * @param continuous keep planning every {@code interval}
     * @param interval time between plans in continuous mode
     */
    public record Options(
            Optional<Instant> from,
            Optional<Instant> to,
            boolean force,
            boolean continuous,
            Duration interval) {
        public Options {
            if (force && continuous) {
                throw new IllegalArgumentException(
                        "--force rewrites every hour on every pass; use it with a range run, not"
                                + " --continuous");
            }
            if (from.isPresent() && to.isPresent() && !from.get().isBefore(to.get())) {
                throw new IllegalArgumentException(
                        "--from " + from.get() + " must be before --to " + to.get());
            }
            if (continuous && (interval.isNegative() || interval.isZero())) {
                throw new IllegalArgumentException("--interval must be positive");
            }
        }

        /** The first hour's start, epoch millis, or null for all. */
        Long fromHour() {
            return from.map(i -> HourPartitioner.hourStart(i.toEpochMilli())).orElse(null);
        }

        /** The end, epoch millis, or null for open. */
        Long toMillis() {
            return to.map(Instant::toEpochMilli).orElse(null);
        }

        /** A bounded run over every complete hour. */
        public static Options all() {
            return new Options(
                    Optional.empty(), Optional.empty(), false, false, Duration.ofSeconds(30));
        }
    }

    /** One hour of one table to bring up to date. */
    public record HourTask(String table, String partition) {}

    /**
     * Adds the compact pipeline to {@code env} and returns its stream of per-hour results. An
     * object-store root needs {@code LakeFileSystem#initialize} in every JVM that runs its tasks.
     */
    public static DataStream<HourCompactor.Result> define(
            StreamExecutionEnvironment env, SluiceConfig config, Options options) {
        return define(env, config, options, CatalogUpkeep.NONE);
    }

    /**
     * {@link #define(StreamExecutionEnvironment, SluiceConfig, Options)}; a continuous job also
     * runs {@code upkeep} with each maintenance of the catalog's tables.
     */
    public static DataStream<HourCompactor.Result> define(
            StreamExecutionEnvironment env,
            SluiceConfig config,
            Options options,
            CatalogUpkeep upkeep) {
        URI root = config.rootUri();
        DataStream<Long> triggers;
        if (options.continuous()) {
            triggers =
                    env.fromSource(
                                    new DataGeneratorSource<>(
                                            n -> n,
                                            Long.MAX_VALUE,
                                            RateLimiterStrategy.perSecond(
                                                    1000.0 / options.interval().toMillis()),
                                            Types.LONG),
                                    WatermarkStrategy.noWatermarks(),
                                    "compact-triggers")
                            .uid("compact-triggers")
                            .setParallelism(1);
        } else {
            triggers = env.fromData(0L).uid("compact-trigger").setParallelism(1);
        }
        Map<String, TableConfig> tables = new LinkedHashMap<>();
        config.tables().forEach(t -> tables.put(t.name(), t));
        return triggers.flatMap(
                        new PlanHours(
                                tables,
                                root.toString(),
                                options.fromHour(),
                                options.toMillis(),
                                options.force(),
                                config.catalog(),
                                options.continuous(),
                                upkeep))
                .uid("compact-plan")
                .name("plan stale hours")
                .setParallelism(1)
                .keyBy(task -> task.table() + "/" + task.partition())
                .map(
                        new CompactHours(
                                tables,
                                root.toString(),
                                options.force(),
                                config.compact().memoryPercent(),
                                config.catalog()))
                .uid("compact-hours")
                .name("compact hour");
    }

    /** How many hours a bounded run with {@code options} would compact now, over every table. */
    public static int pendingHours(SluiceConfig config, Options options) throws IOException {
        int hours = 0;
        try (LakeCatalog catalog = config.catalog().isEnabled() ? LakeCatalog.open(config) : null) {
            for (TableConfig table : config.tables()) {
                hours +=
                        HourCompactor.planner(table, config.rootUri().toString(), catalog)
                                .pending(
                                        Optional.ofNullable(options.fromHour()),
                                        Optional.ofNullable(options.toMillis()),
                                        options.force())
                                .size();
            }
        }
        return hours;
    }

    /** Compacts one hour; a failure is reported as a result, and the hour retried next pass. */
    static final class CompactHours extends RichMapFunction<HourTask, HourCompactor.Result> {
        private final Map<String, TableConfig> tables;
        private final String root;
        private final boolean force;
        private final int memoryPercent;
        private final CatalogConfig catalogConfig;
        private transient LakeCatalog catalog;
        private transient Map<String, HourCompactor> compactors;
        private transient Counter compacted;
        private transient Counter upToDate;
        private transient Counter failed;
        private transient Counter rows;
        private transient Counter duplicates;

        CompactHours(
                Map<String, TableConfig> tables,
                String root,
                boolean force,
                int memoryPercent,
                CatalogConfig catalogConfig) {
            this.tables = tables;
            this.root = root;
            this.force = force;
            this.memoryPercent = memoryPercent;
            this.catalogConfig = catalogConfig;
        }

        @Override
        public void open(OpenContext context) throws IOException {
            catalog =
                    catalogConfig.isEnabled()
                            ? LakeCatalog.open(catalogConfig, URI.create(root))
                            : null;
            compactors = new LinkedHashMap<>();
            // Share the machine's cores between this job's subtasks: each writes its hour's
            // bucket files on its share.
            int subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / subtasks);
            // And its heap: each subtask may compact an hour at the same time.
            long memoryBudget =
                    HourCompactor.memoryBudget(new CompactConfig(memoryPercent), subtasks);
            tables.forEach(
                    (name, t) ->
                            compactors.put(
                                    name,
                                    HourCompactor.builder(t, URI.create(root))
                                            .threads(threads)
                                            .memoryBudget(memoryBudget)
                                            .catalog(catalog)
                                            .build()));
            var metrics = getRuntimeContext().getMetricGroup();
            compacted = metrics.counter("hoursCompacted");
            upToDate = metrics.counter("hoursUpToDate");
            failed = metrics.counter("hoursFailed");
            rows = metrics.counter("rowsWritten");
            duplicates = metrics.counter("duplicatesRemoved");
        }

        @Override
        public void close() throws IOException {
            if (catalog != null) {
                catalog.close();
            }
        }

        @Override
        public HourCompactor.Result map(HourTask task) {
            HourCompactor.Result result;
            try {
                result = compactors.get(task.table()).compact(task.partition(), force);
            } catch (Exception e) {
                LOG.error(
                        "Compacting {} {} failed; the previous warehouse hour stays",
                        task.table(),
                        task.partition(),
                        e);
                failed.inc();
                return HourCompactor.Result.failed(task.table(), task.partition(), e);
            }
            switch (result.outcome()) {
                case COMPACTED -> {
                    compacted.inc();
                    rows.inc(result.rows());
                    duplicates.inc(result.duplicatesRemoved());
                    LOG.info(
                            "Compacted {} {}: {} rows in {} files ({} duplicates removed)",
                            task.table(),
                            task.partition(),
                            result.rows(),
                            result.files(),
                            result.duplicatesRemoved());
                }
                case UP_TO_DATE -> upToDate.inc();
                default -> {}
            }
            return result;
        }
    }
}
