package io.sluice.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.util.ThreadPools;

/**
 * Starts every thread of Iceberg's shared pools (the worker pool, which plans scans and reads
 * manifests, and the delete pool) from the calling thread, once per class loader of Iceberg.
 *
 * <p>A pool thread keeps, for life, the context class loader of the thread that started it. Started
 * lazily inside a Flink task, that was the job's class loader, which Flink closes when the job
 * ends; in a JVM that runs several jobs (local mode, tests) a later read through S3 on that thread
 * failed with "Trying to access closed classloader", since the S3 client looks its logging up
 * through the context class loader. {@link LakeCatalog#open} calls this with Sluice's own loader as
 * the context one, before anything of Iceberg's runs. On a cluster each job's class loader has
 * Iceberg's pools of its own, so this changes nothing there.
 */
final class IcebergWorkers {

    private static boolean started;

    private IcebergWorkers() {}

    static synchronized void start() {
        if (!started) {
            started = true;
            fill(ThreadPools.getWorkerPool(), ThreadPools.WORKER_THREAD_POOL_SIZE);
            fill(ThreadPools.getDeleteWorkerPool(), ThreadPools.DELETE_WORKER_THREAD_POOL_SIZE);
        }
    }

    /**
     * Runs {@code size} tasks on {@code pool} at once, so that a fixed pool of that size starts all
     * of its threads now, from this thread (it never ends one).
     */
    static void fill(ExecutorService pool, int size) {
        CountDownLatch running = new CountDownLatch(size);
        List<Future<?>> tasks = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            tasks.add(
                    pool.submit(
                            () -> {
                                running.countDown();
                                return running.await(10, TimeUnit.SECONDS);
                            }));
        }
        for (Future<?> task : tasks) {
            try {
                task.get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                // A pool busy with other work fills later; nothing here depends on it.
            }
        }
    }
}
