package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.features.testing.LogCapture;
import io.sluice.net.Ports;
import io.sluice.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Connections that fail: to a Redis that accepts connections and never answers, as a black-holed
 * host behind a load balancer does (here a socket whose connections the kernel accepts and nothing
 * reads), and to a port that refuses them.
 */
class RedisConnectionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @Test
    void anAttemptEndsWithinTheTimeoutAndTheOthersFailAtOnceMeanwhile() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                RedisConnection redis =
                        new RedisConnection(
                                URI.create("redis://127.0.0.1:" + silent.getLocalPort()),
                                TIMEOUT)) {
            assertThat(redis.isConnected()).isFalse();
            long start = System.nanoTime();
            CompletableFuture<Void> first =
                    CompletableFuture.runAsync(
                            () ->
                                    assertThatThrownBy(redis::commands)
                                            .isInstanceOf(IOException.class)
                                            .hasMessageContaining("cannot connect to Redis"));
            Await.until(
                    "the first attempt is under way", Duration.ofSeconds(30), redis::isConnecting);
            long other = System.nanoTime();
            assertThatThrownBy(redis::commands)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("another attempt is under way");
            assertThat(System.nanoTime() - other)
                    .as("the second caller did not wait for the first attempt")
                    .isLessThan(TIMEOUT.toNanos());
            first.get(30, TimeUnit.SECONDS);
            // Lettuce's own handshake timeout is 60 s; the connection's bounds it.
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(20));
        }
    }

    /**
     * A refused connection still arms Lettuce's handshake timeout, whose guard runs on a
     * computation thread and notifies the channel's event loop. Here it comes due just as the
     * connection is closed, with the computation threads busy: {@code close} must let it run before
     * the client stops the event loops, or Netty logs the rejected notification with a stack trace
     * (as {@code sluice serve} did once while stopping).
     */
    @Test
    void aHandshakeTimeoutDueAtCloseRunsBeforeTheEventLoopsStop() throws Exception {
        try (LogCapture rejected =
                new LogCapture("io.netty.util.concurrent.DefaultPromise.rejectedExecution")) {
            RedisConnection redis =
                    new RedisConnection(
                            URI.create("redis://127.0.0.1:" + Ports.unassigned()),
                            Duration.ofMillis(200));
            CountDownLatch release = new CountDownLatch(1);
            for (EventExecutor executor : redis.resources().eventExecutorGroup()) {
                executor.execute(
                        () -> {
                            try {
                                release.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
            }
            assertThatThrownBy(redis::commands)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("cannot connect to Redis");
            HashedWheelTimer timer = (HashedWheelTimer) redis.resources().timer();
            Await.until(
                    "the handshake timeout fired, its guard queued behind the busy threads",
                    Duration.ofSeconds(30),
                    () -> timer.pendingTimeouts() == 0);

            Thread closer =
                    new Thread(
                            () -> {
                                try {
                                    redis.close();
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
            closer.start();
            Await.until(
                    "close waits or ends",
                    Duration.ofSeconds(30),
                    () ->
                            switch (closer.getState()) {
                                case WAITING, TIMED_WAITING, TERMINATED -> true;
                                default -> false;
                            });
            release.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(closer.isAlive()).isFalse();
            assertThat(rejected.messages()).isEmpty();
        }
    }
}
