package io.sluice.app.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * An open-loop load generator: call {@code i} is due at {@code start + i / rate}, whatever became
 * of the calls before it, and its latency runs from that intended time to its completion. A slow
 * answer therefore cannot hold back the next sends (no coordinated omission): a late send, a queue
 * in the client or in the server all count against the latency. Calls must not block the caller;
 * they return a stage that completes with the answer.
 *
 * <p>An overloaded target would only build a longer queue the longer the load ran, so a load stops
 * sending once its oldest open call is more than {@code giveUp} late, and says so.
 */
final class OpenLoop {

    /** Starts call {@code i} and returns its completion; a failed stage is an error. */
    interface Call {
        CompletionStage<?> start(int i);
    }

    /** Latencies are kept up to this; a longer one is recorded as this. */
    private static final long LONGEST = TimeUnit.MINUTES.toNanos(1);

    /**
     * What one load produced.
     *
     * @param latencies nanoseconds from each call's intended send time to its completion; calls
     *     still open when the drain ended are recorded as open until then
     * @param planned calls the load was to make
     * @param calls calls made: fewer than planned when the load stopped for overload
     * @param errors calls that failed
     * @param firstError what the first failed call failed with, or null
     * @param unfinished calls that had not completed when the drain ended
     * @param seconds from the first call's intended send time to the last completion (or the end of
     *     the drain)
     */
    record Result(
            Histogram latencies,
            int planned,
            int calls,
            long errors,
            String firstError,
            long unfinished,
            double seconds) {

        /** Calls answered (also with an error) per second, over {@link #seconds}. */
        double answeredPerSecond() {
            return (calls - unfinished) / seconds;
        }

        /** The {@code p} percentile (0 to 100) in milliseconds. */
        double millis(double p) {
            return latencies.getValueAtPercentile(p) / 1e6;
        }

        /** Whether the load stopped early because the target fell too far behind. */
        boolean overloaded() {
            return calls < planned;
        }

        /** Whether every planned call was made and completed without error. */
        boolean clean() {
            return errors == 0 && unfinished == 0 && !overloaded();
        }
    }

    private OpenLoop() {}

    /** When call {@code i} of a load at {@code rate} calls per second from {@code start} is due. */
    static long intendedNanos(long start, double rate, int i) {
        return start + Math.round(i * 1e9 / rate);
    }

    /** How many calls a load at {@code rate} per second makes in {@code length}. */
    static int calls(double rate, Duration length) {
        return (int) Math.max(1, Math.round(rate * length.toNanos() / 1e9));
    }

    /**
     * Makes {@code calls(rate, length)} calls at {@code rate} per second, unless the oldest open
     * one is more than {@code giveUp} late when the next is due; then waits up to {@code drain} for
     * the open ones.
     */
    static Result run(Call call, double rate, Duration length, Duration giveUp, Duration drain) {
        int planned = calls(rate, length);
        Histogram latencies = new ConcurrentHistogram(LONGEST, 3);
        // 0: open, 1: completed, 2: given up at the end of the drain.
        AtomicIntegerArray state = new AtomicIntegerArray(planned);
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        AtomicLong open = new AtomicLong();
        AtomicLong last = new AtomicLong();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
        int oldestOpen = 0;
        int made = 0;
        for (; made < planned; made++) {
            long due = intendedNanos(start, rate, made);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            while (oldestOpen < made && state.get(oldestOpen) != 0) {
                oldestOpen++;
            }
            if (oldestOpen < made
                    && System.nanoTime() - intendedNanos(start, rate, oldestOpen)
                            > giveUp.toNanos()) {
                break;
            }
            int index = made;
            open.incrementAndGet();
            CompletionStage<?> stage;
            try {
                stage = call.start(made);
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete(
                    (answer, failure) -> {
                        if (state.compareAndSet(index, 0, 1)) {
                            long now = System.nanoTime();
                            latencies.recordValue(Math.min(LONGEST, now - due));
                            last.accumulateAndGet(now, Math::max);
                            if (failure != null) {
                                errors.incrementAndGet();
                                firstError.compareAndSet(null, reason(failure));
                            }
                            open.decrementAndGet();
                        }
                    });
        }
        long stopWaiting = System.nanoTime() + drain.toNanos();
        while (open.get() > 0 && System.nanoTime() < stopWaiting) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        long unfinished = 0;
        long end = System.nanoTime();
        for (int i = 0; i < made; i++) {
            if (state.compareAndSet(i, 0, 2)) {
                latencies.recordValue(Math.min(LONGEST, end - intendedNanos(start, rate, i)));
                unfinished++;
                last.set(end);
            }
        }
        return new Result(
                latencies,
                planned,
                made,
                errors.get(),
                firstError.get(),
                unfinished,
                Math.max(1, last.get() - start) / 1e9);
    }

    /** A failure's own message, without the wrappers a completion stage adds. */
    private static String reason(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof java.util.concurrent.CompletionException
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }
}
