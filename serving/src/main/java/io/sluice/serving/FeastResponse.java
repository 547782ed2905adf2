package io.sluice.serving;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.online.FeatureReader;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.Arrays;
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

    /**
     * {@link #NO_TIME}, the statuses and the times are written pre-encoded: a response of 100
     * entities × 50 features repeats a few of them 10,000 times.
     */
    private static final SerializedString NO_TIME_JSON = new SerializedString(NO_TIME);

    private static final SerializedString[] STATUS_JSON =
            Arrays.stream(FeastStatus.values())
                    .map(s -> new SerializedString(s.name()))
                    .toArray(SerializedString[]::new);

    private FeastResponse() {}

    /**
     * The mapper responses are written with: doubles by Jackson's Schubfach writer instead of the
     * JDK 17 {@code Double.toString} it calls otherwise, the largest single cost of writing a
     * response in a profile of {@code bench serve}. Both give digits that read back as the same
     * double.
     */
    public static ObjectMapper mapper() {
        return JsonMapper.builder().enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();
    }

    /** Feast's field statuses that Sluice's map onto, and one of Sluice's own. */
    public enum FeastStatus {
        PRESENT,
        NULL_VALUE,
        NOT_FOUND,
        OUTSIDE_MAX_AGE,
        /**
         * Sluice's own, with no Feast counterpart: the request's {@code "at"} (itself Sluice's, so
         * a Feast client never sees it) is later than the features job has written the view
         * through, so no value is given rather than one from part of the events.
         */
        INCOMPLETE
    }

    /**
     * Sluice's status of a value in Feast's terms: {@code OK} is {@code PRESENT}; {@code
     * EMPTY_WINDOW} is {@code NULL_VALUE} (null min, max, avg, last; count and sum of an empty
     * window are {@code OK} zeros, so {@code PRESENT}); {@code OUT_OF_RETENTION} is {@code
     * OUTSIDE_MAX_AGE}; {@code NOT_FOUND} (no event of the entity in the view's retention) is
     * {@code NOT_FOUND}. {@code INCOMPLETE} (a read at an {@code "at"} the features job has not
     * written the view through) has no Feast counterpart and stays {@code INCOMPLETE}: {@code
     * NULL_VALUE} would pass its null as the entity's value, {@code NOT_FOUND} would say the entity
     * does not exist, {@code OUTSIDE_MAX_AGE} that a stored value is too old.
     */
    public static FeastStatus status(FeatureValue value) {
        return switch (value.status()) {
            case OK, EMPTY_WINDOW ->
                    value.value() == null ? FeastStatus.NULL_VALUE : FeastStatus.PRESENT;
            case OUT_OF_RETENTION -> FeastStatus.OUTSIDE_MAX_AGE;
            case NOT_FOUND -> FeastStatus.NOT_FOUND;
            case INCOMPLETE -> FeastStatus.INCOMPLETE;
        };
    }

    /**
     * The response name of a feature: {@code view__feature} with full names, else {@code feature}.
     */
    static String name(FeatureReader.FeatureRef ref, boolean full) {
        return full ? ref.view() + "__" + ref.feature() : ref.feature();
    }

    /** About how many bytes {@link #write} writes for {@code entities} of {@code request}. */
    static int sizeHint(OnlineRequest request, int entities) {
        return 256 + 64 * entities * request.features().size();
    }

    /**
     * Writes the response to {@code request}, whose read returned {@code vectors} in entity order,
     * as UTF-8 JSON to {@code bytes}. Written as a stream, without a tree: a response of 100
     * entities × 50 features is 15,000 values, statuses and times.
     */
    public static void write(
            ObjectMapper mapper,
            OnlineRequest request,
            List<FeatureReader.Vector> vectors,
            OutputStream bytes)
            throws IOException {
        Map<Long, SerializedString> timestamps = new HashMap<>();
        try (JsonGenerator out = mapper.getFactory().createGenerator(bytes)) {
            out.writeStartObject();
            out.writeObjectFieldStart("metadata");
            out.writeArrayFieldStart("feature_names");
            out.writeString(request.entityName());
            for (FeatureReader.FeatureRef f : request.features()) {
                out.writeString(name(f, request.fullFeatureNames()));
            }
            out.writeEndArray();
            out.writeEndObject();
            out.writeArrayFieldStart("results");
            out.writeStartObject();
            out.writeArrayFieldStart("values");
            for (JsonNode key : request.keys()) {
                out.writeTree(key);
            }
            out.writeEndArray();
            out.writeArrayFieldStart("statuses");
            for (int i = 0; i < request.keys().size(); i++) {
                out.writeString(STATUS_JSON[FeastStatus.PRESENT.ordinal()]);
            }
            out.writeEndArray();
            out.writeArrayFieldStart("event_timestamps");
            for (int i = 0; i < request.keys().size(); i++) {
                out.writeString(NO_TIME_JSON);
            }
            out.writeEndArray();
            out.writeEndObject();
            for (int f = 0; f < request.features().size(); f++) {
                out.writeStartObject();
                out.writeArrayFieldStart("values");
                for (FeatureReader.Vector v : vectors) {
                    writeValue(out, v.values().get(f).value());
                }
                out.writeEndArray();
                out.writeArrayFieldStart("statuses");
                for (FeatureReader.Vector v : vectors) {
                    out.writeString(STATUS_JSON[status(v.values().get(f)).ordinal()]);
                }
                out.writeEndArray();
                out.writeArrayFieldStart("event_timestamps");
                for (FeatureReader.Vector v : vectors) {
                    long time = v.values().get(f).eventTime();
                    // An entity's features mostly share a few event times.
                    out.writeString(
                            time < 0
                                    ? NO_TIME_JSON
                                    : timestamps.computeIfAbsent(
                                            time,
                                            t ->
                                                    new SerializedString(
                                                            Instant.ofEpochMilli(t).toString())));
                }
                out.writeEndArray();
                out.writeEndObject();
            }
            out.writeEndArray();
            out.writeEndObject();
        }
    }

    private static void writeValue(JsonGenerator out, Object value) throws IOException {
        // The types Values.as gives; anything else goes through Jackson's own conversion.
        if (value == null) {
            out.writeNull();
        } else if (value instanceof Float f) {
            // The exact value of the float32, as `sluice get --json` prints it: 12.99f is
            // 12.989999771118164, which a double reader of the warehouse's FLOAT column sees too.
            out.writeNumber(f.doubleValue());
        } else if (value instanceof Double d) {
            out.writeNumber(d);
        } else if (value instanceof Long l) {
            out.writeNumber(l);
        } else if (value instanceof Integer i) {
            out.writeNumber(i);
        } else if (value instanceof String text) {
            out.writeString(text);
        } else {
            out.writeObject(value);
        }
    }
}
