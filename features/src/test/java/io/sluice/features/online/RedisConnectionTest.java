package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A Redis that accepts connections and never answers, as a black-holed host behind a load balancer
 * does: here a socket whose connections the kernel accepts and nothing reads.
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
}
