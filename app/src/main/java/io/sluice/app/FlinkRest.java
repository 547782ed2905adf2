package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * A client of a Flink cluster's REST API, for what Sluice does with it: upload the job jar and run
 * its entry class, as the Flink Kubernetes Operator does for a jar ({@code POST /jars/upload}, then
 * {@code POST /jars/<id>/run}), and read jobs' states. Plain {@link HttpClient}, no Flink client
 * library: the jar's main runs in the job manager, from the jar, through Flink's user-code class
 * loader.
 */
final class FlinkRest {

    /** Job states after which a job does nothing more by itself. */
    static final Set<String> TERMINAL = Set.of("FINISHED", "FAILED", "CANCELED", "SUSPENDED");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http;

    /**
     * @param base the REST endpoint, e.g. {@code http://127.0.0.1:8081}
     */
    FlinkRest(URI base) {
        this.base = base;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    URI base() {
        return base;
    }

    /** {@code GET path}, e.g. {@code /overview}; fails unless the answer is 2xx. */
    JsonNode get(String path) throws IOException {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET().build());
    }

    /**
     * Uploads {@code jar} ({@code POST /jars/upload}, multipart) and returns its id on the cluster.
     */
    String uploadJar(Path jar) throws IOException {
        String boundary = "sluice-" + UUID.randomUUID();
        String head =
                "--"
                        + boundary
                        + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                        + jar.getFileName()
                        + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        HttpRequest request =
                HttpRequest.newBuilder(base.resolve("/jars/upload"))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(
                                HttpRequest.BodyPublishers.concat(
                                        HttpRequest.BodyPublishers.ofString(head),
                                        HttpRequest.BodyPublishers.ofFile(jar),
                                        HttpRequest.BodyPublishers.ofString(tail)))
                        .build();
        JsonNode answer = send(request);
        String file = answer.path("filename").asText("");
        if (!"success".equals(answer.path("status").asText()) || file.isEmpty()) {
            throw new IOException("uploading " + jar + " to " + base + " failed: " + answer);
        }
        // The id is the name of the stored file: .../flink-web-upload/<uuid>_sluice.jar
        return Path.of(file).getFileName().toString();
    }

    /**
     * Runs {@code entryClass} of an uploaded jar with {@code args} ({@code POST /jars/<id>/run}):
     * the job manager calls its main, which submits the job; returns the job's id. The request
     * returns when main does.
     */
    String runJar(String jarId, String entryClass, List<String> args) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("entryClass", entryClass);
        body.putPOJO("programArgsList", args);
        HttpRequest request =
                HttpRequest.newBuilder(base.resolve("/jars/" + jarId + "/run"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                        .build();
        return send(request).path("jobid").asText();
    }

    /**
     * Stops a job with a savepoint in {@code directory} ({@code POST /jobs/<id>/stop}, as the Flink
     * Kubernetes Operator does for a savepoint upgrade) and waits until it is written.
     *
     * @param drain whether the sources end first, flushing every window and timer (for a job that
     *     will not be resumed)
     * @return the savepoint's location
     */
    String stopWithSavepoint(String jobId, String directory, boolean drain, Duration timeout)
            throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("targetDirectory", directory);
        body.put("drain", drain);
        String trigger =
                send(HttpRequest.newBuilder(base.resolve("/jobs/" + jobId + "/stop"))
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                JSON.writeValueAsString(body)))
                                .build())
                        .path("request-id")
                        .asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode answer = get("/jobs/" + jobId + "/savepoints/" + trigger);
            if (answer.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode operation = answer.path("operation");
                if (operation.has("failure-cause")) {
                    throw new IOException(
                            "the savepoint of job "
                                    + jobId
                                    + " failed: "
                                    + operation
                                            .path("failure-cause")
                                            .path("stack-trace")
                                            .asText("")
                                            .lines()
                                            .findFirst()
                                            .orElse(""));
                }
                return operation.path("location").asText();
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "job " + jobId + "'s savepoint was not written within " + timeout);
            }
            try {
                // Flink's REST API reports an asynchronous operation only when asked: poll it.
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while job " + jobId + " took a savepoint", e);
            }
        }
    }

    /** The jobs that have not ended, by name ({@code sluice-ingest}, …) to id. */
    java.util.Map<String, String> runningJobs() throws IOException {
        java.util.Map<String, String> jobs = new java.util.TreeMap<>();
        for (JsonNode job : get("/jobs/overview").path("jobs")) {
            if (!TERMINAL.contains(job.path("state").asText())) {
                jobs.put(job.path("name").asText(), job.path("jid").asText());
            }
        }
        return jobs;
    }

    /** Deletes an uploaded jar ({@code DELETE /jars/<id>}). */
    void deleteJar(String jarId) throws IOException {
        send(HttpRequest.newBuilder(base.resolve("/jars/" + jarId)).DELETE().build());
    }

    /** The job's state, e.g. {@code RUNNING} or {@code FINISHED}. */
    String state(String jobId) throws IOException {
        return get("/jobs/" + jobId).path("state").asText();
    }

    /** The first line of the newest failure the job recorded, or empty. */
    String lastFailure(String jobId) throws IOException {
        JsonNode entries = get("/jobs/" + jobId + "/exceptions").path("exceptionHistory");
        for (JsonNode e : entries.path("entries")) {
            return e.path("stacktrace").asText("").lines().findFirst().orElse("");
        }
        return "";
    }

    /** Nothing answers at the endpoint. */
    static final class Unreachable extends IOException {
        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private JsonNode send(HttpRequest request) throws IOException {
        HttpResponse<String> response;
        try {
            response =
                    http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            throw new Unreachable("no Flink REST endpoint answers at " + base + " (" + e + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        JsonNode answer =
                response.body().isBlank()
                        ? JSON.createObjectNode()
                        : JSON.readTree(response.body());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(
                    request.method()
                            + " "
                            + request.uri()
                            + ": HTTP "
                            + response.statusCode()
                            + ": "
                            + errors(answer));
        }
        return answer;
    }

    /**
     * What Flink's error answer says, shortened: the message the jar's main failed with if there is
     * one (the rest is the handler's stack), else the first line of each error.
     */
    static String errors(JsonNode answer) {
        List<String> lines = new ArrayList<>();
        for (JsonNode e : answer.path("errors")) {
            e.asText().lines().forEach(lines::add);
        }
        String marker = "The main method caused an error: ";
        String main = null;
        for (String line : lines) {
            int at = line.indexOf(marker);
            if (at >= 0) {
                main = line.substring(at + marker.length());
            }
        }
        if (main != null) {
            return main;
        }
        List<String> first = new ArrayList<>();
        for (JsonNode e : answer.path("errors")) {
            first.add(e.asText().lines().findFirst().orElse(""));
        }
        return first.isEmpty() ? answer.toString() : String.join("; ", first);
    }
}
