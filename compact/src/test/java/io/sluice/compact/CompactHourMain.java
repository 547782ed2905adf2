package io.sluice.compact;

import io.sluice.config.TableConfig;
import io.sluice.testing.TestConfigs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Compacts one hour of the reference shop's {@code purchases} in a JVM of its own, as a test's
 * child process: {@code <root> <partition> spill|in-memory}. With {@code spill} the hour gets the
 * default memory budget ({@link HourCompactor#memoryBudget}); {@code in-memory} lifts the budget so
 * the whole hour is held in memory, as before the external sort. Exits 0 if the hour compacted.
 *
 * <p>While it compacts, a thread watches {@code java.io.tmpdir} and prints the most run files it
 * saw there at once: the spill observed from outside the compactor.
 */
public final class CompactHourMain {

    private CompactHourMain() {}

    private static void watch(AtomicInteger mostRunFiles) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        while (!Thread.currentThread().isInterrupted()) {
            try (Stream<Path> files = Files.walk(tmp)) {
                int runs = (int) files.filter(p -> p.toString().endsWith(".run")).count();
                mostRunFiles.accumulateAndGet(runs, Math::max);
                // A sampler, not a wait: it counts the run files every 20 ms while the hour
                // compacts, to record the most seen at once.
                Thread.sleep(20);
            } catch (IOException | UncheckedIOException e) {
                // A run file deleted while listed: look again.
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        TableConfig purchases =
                TestConfigs.shop(root, "localhost:1", "t").table("purchases").orElseThrow();
        HourCompactor compactor =
                "in-memory".equals(args[2])
                        ? HourCompactor.builder(purchases, root.toUri())
                                .memoryBudget(Long.MAX_VALUE / 4)
                                .build()
                        : new HourCompactor(purchases, root);
        System.out.println(
                "max heap "
                        + Runtime.getRuntime().maxMemory()
                        + " bytes, memory budget "
                        + HourCompactor.memoryBudget(io.sluice.config.CompactConfig.DEFAULTS, 1)
                        + " bytes");
        AtomicInteger mostRunFiles = new AtomicInteger();
        Thread watcher = new Thread(() -> watch(mostRunFiles), "spill-watcher");
        watcher.setDaemon(true);
        watcher.start();
        HourCompactor.Result result = compactor.compact(args[1], true);
        watcher.interrupt();
        watcher.join();
        System.out.println("most run files seen at once: " + mostRunFiles.get());
        System.out.println(result);
        System.exit(result.outcome() == HourCompactor.Outcome.COMPACTED ? 0 : 1);
    }
}
