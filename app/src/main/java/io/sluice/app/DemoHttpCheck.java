package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.features.online.WrittenThrough;
import io.sluice.features.training.Spine;
import io.sluice.features.training.TrainingSetBuilder;
import io.sluice.serving.Catalog;
import io.sluice.serving.FeatureServer;
import io.sluice.serving.Limits;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * The demo's last stage: starts the HTTP feature server on a free port over the demo's online
 * store, sends it one {@code POST /get-online-features} in Feast's shape for every feature of one
 * view, one entity of the training set and that row's time, and compares each value it answers with
 * the training set's at the same (entity, time). Values must be equal (counts, integers and strings
 * exactly, doubles to 1e-9 relative, float32 to 1e-9 relative or one float ulp, nulls to nulls);
 * statuses only loosely: a value that is there must be {@code PRESENT}.
 */
final class DemoHttpCheck {

    /**
     * Keeps the chosen row this far inside the view's ttl, so that it is still in retention when
     * the server reads it a moment later.
     */
    private static final long RETENTION_MARGIN_MS = Duration.ofMinutes(10).toMillis();

    private final ObjectMapper mapper = new ObjectMapper();
    private final SluiceConfig config;
    private final PrintStream out;

    DemoHttpCheck(SluiceConfig config, PrintStream out) {
        this.config = config;
        this.out = out;
    }

    /** The chosen training-set row: its index, entity and time, and the view whose features. */
    record Pick(FeatureViewConfig view, int row, String entity, Instant at) {}

    /**
     * Runs the check against {@code trainingSet} (the demo's {@code training_set.parquet}).
     *
     * @return the report for {@code summary.json}; its {@code ok} says whether every value matched
     */
    ObjectNode run(Path trainingSet) throws IOException, InterruptedException {
        Spine rows = Spine.read(trainingSet);
        FeatureViewConfig view =
                config.featureViews().stream()
                        .max(Comparator.comparingInt(v -> v.features().size()))
                        .orElseThrow(() -> new IllegalStateException("no feature views"));
        ObjectNode report = mapper.createObjectNode();
        long now = System.currentTimeMillis();
        long until;
        try (OnlineStore store = OnlineStores.open(config.online())) {
            // A row the features job has written the view through: a later one is INCOMPLETE.
            until = WrittenThrough.before(store.writtenThrough(view.name()), now);
        }
        Pick pick = pick(rows, view, now, until);
        if (pick == null) {
            out.println(
                    "serve: no training-set row is within the retention of "
                            + view.name()
                            + " and before what the features job has written");
            report.put("ok", false);
            report.put(
                    "problem",
                    "no training-set row within the view's retention and the features job's"
                            + " written-through mark");
            return report;
        }
        GenericRecord row = rows.rows().get(pick.row());
        ObjectNode request = mapper.createObjectNode();
        ArrayNode features = request.putArray("features");
        view.features().forEach(f -> features.add(view.name() + ":" + f.name()));
        request.putObject("entities").putArray(view.entity()).add(pick.entity());
        request.put("full_feature_names", true);
        request.put("at", pick.at().toString());

        String body = mapper.writeValueAsString(request);
        try (OnlineStore store = OnlineStores.open(config.online());
                FeatureServer server =
                        FeatureServer.start(
                                Catalog.of(config), store, Limits.DEFAULT, "127.0.0.1", 0)) {
            URI url = URI.create("http://127.0.0.1:" + server.port() + "/get-online-features");
            out.printf(
                    "serve: feature server on http://127.0.0.1:%d over the %s online store%n",
                    server.port(), config.online().store().name().toLowerCase(Locale.ROOT));
            out.println("serve: POST " + url.getPath() + " " + body);
            HttpResponse<String> response =
                    HttpClient.newBuilder()
                            .connectTimeout(Duration.ofSeconds(5))
                            .build()
                            .send(
                                    HttpRequest.newBuilder(url)
                                            .timeout(Duration.ofSeconds(30))
                                            .header("content-type", "application/json")
                                            .POST(HttpRequest.BodyPublishers.ofString(body))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            report.put("url", url.toString());
            report.set("request", request);
            report.put("http_status", response.statusCode());
            report.put("training_set_row", pick.row());
            if (response.statusCode() == 200) {
                compare(view, row, mapper.readTree(response.body()), report);
            } else {
                out.printf(
                        "serve: HTTP %d: %s -> MISMATCH%n", response.statusCode(), response.body());
                report.put("problem", response.body());
                report.put("ok", false);
            }
        }
        out.println("serve: feature server stopped");
        return report;
    }

    /** Compares each of the view's features in {@code response} with {@code row}'s value. */
    private void compare(
            FeatureViewConfig view, GenericRecord row, JsonNode response, ObjectNode report) {
        Map<String, Integer> columns = new HashMap<>();
        JsonNode names = response.path("metadata").path("feature_names");
        for (int i = 0; i < names.size(); i++) {
            columns.put(names.get(i).asText(), i);
        }
        ObjectNode values = report.putObject("features");
        int mismatches = 0;
        for (FeatureConfig f : view.features()) {
            String name = view.name() + "__" + f.name();
            Object want = row.get(name);
            Integer column = columns.get(name);
            JsonNode result = column == null ? null : response.path("results").path(column);
            JsonNode got = result == null ? null : result.path("values").path(0);
            String status = result == null ? "MISSING" : result.path("statuses").path(0).asText();
            boolean match =
                    got != null
                            && !got.isMissingNode()
                            && sameValue(want, got)
                            && (got.isNull() || "PRESENT".equals(status));
            ObjectNode value = values.putObject(view.name() + ":" + f.name());
            value.set("http", got == null || got.isMissingNode() ? null : got);
            value.put("status", status);
            value.set("training_set", mapper.valueToTree(plain(want)));
            value.put("match", match);
            if (!match) {
                mismatches++;
            }
            out.printf(
                    "serve:   %-40s http %-22s %-12s training set %-22s %s%n",
                    view.name() + ":" + f.name(),
                    got == null ? "(missing)" : got.toString(),
                    status,
                    value.get("training_set").toString(),
                    match ? "match" : "MISMATCH");
        }
        report.put("compared", view.features().size());
        report.put("mismatches", mismatches);
        report.put("ok", mismatches == 0);
        out.printf(
                "serve: %d features over HTTP vs training-set row %d -> %s%n",
                view.features().size(),
                report.get("training_set_row").asInt(),
                mismatches == 0 ? "OK" : mismatches + " MISMATCHES");
    }

    /**
     * The row to ask about: among rows at a past time well inside {@code view}'s ttl, the one with
     * the most non-null values of {@code view}, then the most distinct ones (the first such), so
     * that the entity has events in the view and the comparison covers the view's min, max, average
     * and last, not only counts, and sums of more than one event where there are any. Only rows
     * before {@code until} (now, or how far the features job has written the view) count.
     */
    static Pick pick(Spine rows, FeatureViewConfig view, long now, long until) {
        Schema.Field key = rows.column(view.entity(), "the entity");
        Schema.Field time = rows.column(TrainingSetBuilder.TIMESTAMP_COLUMN, "the row's time");
        Pick best = null;
        long bestScore = -1;
        for (int i = 0; i < rows.rows().size(); i++) {
            Instant instant = rows.time(i, time);
            long at = instant.toEpochMilli();
            if (at >= until || at < now - view.ttl().toMillis() + RETENTION_MARGIN_MS) {
                continue;
            }
            int present = 0;
            Set<String> distinct = new HashSet<>();
            for (FeatureConfig f : view.features()) {
                Object value = rows.rows().get(i).get(view.name() + "__" + f.name());
                if (value != null) {
                    present++;
                    distinct.add(value.toString());
                }
            }
            long score = present * 1_000L + distinct.size();
            if (score > bestScore) {
                best = new Pick(view, i, rows.key(i, key), instant);
                bestScore = score;
            }
        }
        return best;
    }

    /**
     * Whether the server's {@code got} is the training set's {@code want}: both null; integers
     * equal; strings equal; a double to 1e-9 relative; a float32 to 1e-9 relative or one ulp of the
     * float (sums are kept in double and narrowed at the end, so one rounding may differ).
     */
    static boolean sameValue(Object want, JsonNode got) {
        if (want == null || got.isNull()) {
            return want == null && got.isNull();
        }
        if (want instanceof Float || want instanceof Double) {
            if (!got.isNumber()) {
                return false;
            }
            double w = ((Number) want).doubleValue();
            double g = got.doubleValue();
            double tolerance = Math.abs(w) * 1e-9;
            if (want instanceof Float f) {
                tolerance = Math.max(tolerance, Math.ulp(f));
            }
            return Math.abs(w - g) <= tolerance;
        }
        if (want instanceof Long || want instanceof Integer) {
            return got.isIntegralNumber() && got.longValue() == ((Number) want).longValue();
        }
        return got.isTextual() && got.asText().equals(want.toString());
    }

    /** A training-set value as JSON shows it: text for Avro's strings, a float32 exactly. */
    private static Object plain(Object value) {
        if (value instanceof Float f) {
            return f.doubleValue();
        }
        if (value instanceof CharSequence s) {
            return s.toString();
        }
        return value;
    }
}
