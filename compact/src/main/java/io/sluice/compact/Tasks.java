package io.sluice.compact;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/** Runs a compaction's reads and writes on its threads. */
final class Tasks {

    private Tasks() {}

    /**
     * Runs {@code tasks} on {@code pool} (or in order on this thread without one) and returns their
     * results in order; the first failure is rethrown as it was thrown.
     */
    static <T> List<T> runAll(ExecutorService pool, List<Callable<T>> tasks) throws IOException {
        List<T> results = new ArrayList<>(tasks.size());
        try {
            if (pool == null) {
                for (Callable<T> task : tasks) {
                    results.add(task.call());
                }
                return results;
            }
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(task));
            }
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while compacting");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(cause);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }
}
