package io.sluice.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds, instead of sleeping for a guessed time. */
public final class Await {

    private Await() {}

    public static void until(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }
}
