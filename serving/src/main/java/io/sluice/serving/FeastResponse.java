package io.sluice.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.online.FeatureReader;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code POST /get-online-features} response in Feast's shape: {@code metadata.feature_names}
 * starts with the entity column, and {@code results} holds one column per name, each with the
 * values, statuses and event timestamps of every requested entity in request order. The first
 * column is the entity keys themselves ({@code PRESENT}, event time epoch 0), as Feast's HTTP
 * feature server returns them.
 */
public final class FeastResponse {

    /** Feast's event timestamp when there is none. */
    static final String NO_TIME = Instant.EPOCH.toString();

    private FeastResponse() {}

    /** Feast's field statuses that Sluice's map onto. */
    public enum FeastStatus {
        PRESENT,
        NULL_VALUE,
        NOT_FOUND,
        OUTSIDE_MAX_AGE
    }

    /**
     * Sluice's status of a value in Feast's terms: {@code OK} is {@code PRESENT}; {@code
     * EMPTY_WINDOW} is {@code NULL_VALUE} (null min, max, avg, last; count and sum of an empty
     * window are {@code OK} zeros, so {@code PRESENT}); {@code OUT_OF_RETENTION} is {@code
     * OUTSIDE_MAX_AGE}; {@code NOT_FOUND} (no event of the entity in the view's retention) is
     * {@code NOT_FOUND}. {@code INCOMPLETE} (the data a value needs is not all there yet) has no
     * Feast counterpart; it is {@code NULL_VALUE}, since its value is null and the entity may well
     * exist ({@code NOT_FOUND} would say it does not, {@code OUTSIDE_MAX_AGE} that a stored value
     * is too old). Only the training-set builder gives it; the online reader never does.
     */
    public static FeastStatus status(FeatureValue value) {
        return switch (value.status()) {
            case OK, EMPTY_WINDOW ->
                    value.value() == null ? FeastStatus.NULL_VALUE : FeastStatus.PRESENT;
            case OUT_OF_RETENTION -> FeastStatus.OUTSIDE_MAX_AGE;
            case NOT_FOUND -> FeastStatus.NOT_FOUND;
            case INCOMPLETE -> FeastStatus.NULL_VALUE;
        };
    }

    /**
     * The response name of a feature: {@code view__feature} with full names, else {@code feature}.
     */
    static String name(FeatureReader.FeatureRef ref, boolean full) {
        return full ? ref.view() + "__" + ref.feature() : ref.feature();
    }

    /** The response to {@code request}, whose read returned {@code vectors} in entity order. */
    public static ObjectNode of(
            ObjectMapper mapper, OnlineRequest request, List<FeatureReader.Vector> vectors) {
        ObjectNode root = mapper.createObjectNode();
        ArrayNode names = root.putObject("metadata").putArray("feature_names");
        ArrayNode results = root.putArray("results");
        Map<Long, String> timestamps = new HashMap<>();
        names.add(request.entityName());
        ObjectNode keys = results.addObject();
        ArrayNode keyValues = keys.putArray("values");
        ArrayNode keyStatuses = keys.putArray("statuses");
        ArrayNode keyTimes = keys.putArray("event_timestamps");
        for (JsonNode key : request.keys()) {
            keyValues.add(key);
            keyStatuses.add(FeastStatus.PRESENT.name());
            keyTimes.add(NO_TIME);
        }
        for (int f = 0; f < request.features().size(); f++) {
            names.add(name(request.features().get(f), request.fullFeatureNames()));
            ObjectNode column = results.addObject();
            ArrayNode values = column.putArray("values");
            ArrayNode statuses = column.putArray("statuses");
            ArrayNode times = column.putArray("event_timestamps");
            for (FeatureReader.Vector v : vectors) {
                FeatureValue value = v.values().get(f);
                addValue(mapper, values, value.value());
                statuses.add(status(value).name());
                times.add(
                        value.eventTime() < 0
                                ? NO_TIME
                                // An entity's features mostly share a few event times.
                                : timestamps.computeIfAbsent(
                                        value.eventTime(),
                                        t -> Instant.ofEpochMilli(t).toString()));
            }
        }
        return root;
    }

    private static void addValue(ObjectMapper mapper, ArrayNode values, Object value) {
        // The types Values.as gives; anything else goes through Jackson's own conversion.
        if (value == null) {
            values.addNull();
        } else if (value instanceof Float f) {
            // The exact value of the float32, as `sluice get --json` prints it: 12.99f is
            // 12.989999771118164, which a double reader of the warehouse's FLOAT column sees too.
            values.add(f.doubleValue());
        } else if (value instanceof Double d) {
            values.add(d);
        } else if (value instanceof Long l) {
            values.add(l);
        } else if (value instanceof Integer i) {
            values.add(i);
        } else if (value instanceof String text) {
            values.add(text);
        } else {
            values.add(mapper.valueToTree(value));
        }
    }
}
