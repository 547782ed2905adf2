package io.sluice.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.util.ThreadPools;
import org.junit.jupiter.api.Test;

class IcebergWorkersTest {

    private static final int SIZE = 3;

    @Test
    void aPoolFilledFirstRunsLaterTasksWithTheFillersLoaderNotTheSubmitters() throws Exception {
        ClassLoader sluice = getClass().getClassLoader();
        try (URLClassLoader job = new URLClassLoader(new URL[0], sluice)) {
            // A fixed pool, as Iceberg's are.
            ExecutorService filled = Executors.newFixedThreadPool(SIZE);
            runAs(sluice, () -> IcebergWorkers.fill(filled, SIZE));
            assertThat(loadersSeen(filled, SIZE, job)).containsOnly(sluice);

            // Without it, the pool's threads start with the submitting job's class loader.
            ExecutorService lazy = Executors.newFixedThreadPool(SIZE);
            assertThat(loadersSeen(lazy, SIZE, job)).containsOnly(job);
            filled.shutdown();
            lazy.shutdown();
        }
    }

    @Test
    void startFillsIcebergsSharedPoolsOnce() throws Exception {
        ClassLoader sluice = getClass().getClassLoader();
        runAs(sluice, IcebergWorkers::start);
        try (URLClassLoader job = new URLClassLoader(new URL[0], sluice)) {
            runAs(job, IcebergWorkers::start);
            assertThat(
                            loadersSeen(
                                    ThreadPools.getWorkerPool(),
                                    ThreadPools.WORKER_THREAD_POOL_SIZE,
                                    job))
                    .doesNotContain(job);
        }
    }

    /** Runs {@code action} on a new thread whose context class loader is {@code loader}. */
    private static void runAs(ClassLoader loader, Runnable action) throws InterruptedException {
        Thread thread = new Thread(action);
        thread.setContextClassLoader(loader);
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(thread.isAlive()).isFalse();
    }

    /**
     * The context class loaders of the threads of a pool of {@code size} that run {@code size}
     * tasks at once, submitted from a thread whose context class loader is {@code submitter}.
     */
    private static Set<ClassLoader> loadersSeen(
            ExecutorService pool, int size, ClassLoader submitter) throws Exception {
        Set<ClassLoader> seen = ConcurrentHashMap.newKeySet();
        List<Future<Boolean>> tasks = new ArrayList<>();
        CountDownLatch together = new CountDownLatch(size);
        runAs(
                submitter,
                () -> {
                    for (int i = 0; i < size; i++) {
                        tasks.add(
                                pool.submit(
                                        () -> {
                                            seen.add(
                                                    Thread.currentThread().getContextClassLoader());
                                            together.countDown();
                                            return together.await(10, TimeUnit.SECONDS);
                                        }));
                    }
                });
        for (Future<Boolean> task : tasks) {
            assertThat(task.get(30, TimeUnit.SECONDS)).isTrue();
        }
        return seen;
    }
}
