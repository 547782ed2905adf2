package io.sluice.features.job;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;

/**
 * Waits for a submitted batch job while reporting one of its counters (a {@code LongCounter}
 * accumulator), as its tasks report it with their heartbeats. Used by the long batch jobs behind
 * the CLI's progress lines: the training set and the backfill.
 */
public final class JobProgress {

    /** How often a running job's counter is asked for. */
    public static final Duration EVERY = Duration.ofMillis(500);

    private JobProgress() {}

    /**
     * Returns the job's result once it ends, or throws its failure; until then tells {@code done}
     * the counter's value every {@link #EVERY} (only when the job can say).
     */
    public static JobExecutionResult await(JobClient job, String counter, LongConsumer done)
            throws Exception {
        var finished = job.getJobExecutionResult();
        while (true) {
            try {
                return finished.get(EVERY.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException running) {
                poll(job, counter, done);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }

    /**
     * Tells {@code done} the counter, if the job can say: a job that has just ended may have taken
     * its local cluster down with it, and its result is then the next thing to read, so a failed
     * poll is skipped.
     */
    private static void poll(JobClient job, String counter, LongConsumer done)
            throws InterruptedException {
        Object n;
        try {
            n = job.getAccumulators().get().get(counter);
        } catch (ExecutionException | RuntimeException ended) {
            return;
        }
        if (n instanceof Long count) {
            done.accept(count);
        }
    }
}
