package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testing.Await;
import io.sluice.testing.TestConfigs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice serve} as its own JVM, stopped the way Kubernetes stops a pod: SIGTERM, with the
 * Deployment's {@code --shutdown-delay}. Until it exits, {@code /ready} answers 503 "draining"
 * while the server still answers, and it ends once every request has been answered.
 */
class ServeStopITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");

    @TempDir Path dir;

    @RegisterExtension final SluiceProcesses processes = new SluiceProcesses("256m");

    private final HttpClient http =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();

    @Test
    void sigtermLeavesTheServiceFirstThenStops() throws Exception {
        SluiceProcesses.Child serve =
                processes.start(
                        dir.resolve("serve.log"),
                        "serve",
                        "--config",
                        TestConfigs.referenceFile().toString(),
                        // No Redis there: /ready answers 503 "unavailable" until the drain, and
                        // "draining" during it, which is what this test tells apart.
                        "--online",
                        "redis://127.0.0.1:1",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--shutdown-delay",
                        "5");
        AtomicReference<URI> base = new AtomicReference<>();
        Await.until(
                "the server listens",
                TIMEOUT,
                () -> {
                    Matcher m = LISTENING.matcher(serve.output());
                    if (m.find()) {
                        base.set(URI.create("http://127.0.0.1:" + m.group(1)));
                    }
                    return base.get() != null || !serve.isAlive();
                });
        assertThat(base.get()).as(serve.output()).isNotNull();
        assertThat(get(base.get(), "/health").statusCode()).isEqualTo(200);
        assertThat(get(base.get(), "/ready").body()).doesNotContain("draining");

        serve.process().destroy(); // SIGTERM
        AtomicReference<HttpResponse<String>> ready = new AtomicReference<>();
        Await.until(
                "/ready answers draining",
                TIMEOUT,
                () -> {
                    ready.set(get(base.get(), "/ready"));
                    return ready.get().body().contains("draining");
                });
        assertThat(ready.get().statusCode()).isEqualTo(503);
        HttpResponse<String> health = get(base.get(), "/health");
        assertThat(health.statusCode()).as("still answering while draining").isEqualTo(200);
        assertThat(health.headers().firstValue("connection")).hasValue("close");

        assertThat(serve.process().waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .as(serve.output())
                .isTrue();
        assertThat(serve.process().exitValue()).as("ended by SIGTERM").isEqualTo(143);
        assertThat(serve.output())
                .contains(
                        "sluice serve: stopping: /ready answers 503",
                        "sluice serve: stopped (every request answered)")
                .doesNotContain("\tat ");
    }

    private HttpResponse<String> get(URI base, String path) {
        try {
            return http.send(
                    HttpRequest.newBuilder(base.resolve(path))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
