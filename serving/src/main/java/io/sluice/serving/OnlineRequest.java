package io.sluice.serving;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.event.StrictText;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.features.online.FeatureRefs;
import io.sluice.features.online.ReadTime;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code POST /get-online-features} request in Feast's shape, parsed and checked against the
 * catalog and the limits before anything is read: {@code {"features": ["view:feature", ...],
 * "entities": {"user_id": ["u1", ...]}, "full_feature_names": false, "at": "2026-...Z"}}.
 *
 * @param features the requested features, resolved against the catalog
 * @param entityName the entity column, the single key of {@code entities}
 * @param keys the entity keys as sent (strings or integers), echoed in the response
 * @param entities the entity keys as the store keeps them
 * @param fullFeatureNames whether response names are {@code view__feature} instead of {@code
 *     feature}
 * @param at the time to read at, at the precision it was sent (micro- and nanoseconds are kept, so
 *     a read agrees with a training set's row at the same time), or null for now
 */
public record OnlineRequest(
        List<FeatureRef> features,
        String entityName,
        List<JsonNode> keys,
        List<String> entities,
        boolean fullFeatureNames,
        Instant at) {

    /**
     * Parses and validates a request body.
     *
     * @throws BadRequest naming the field at fault, and for unknown views or features what exists
     */
    public static OnlineRequest parse(
            byte[] body, ObjectMapper mapper, Catalog catalog, Limits limits, long now) {
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            throw new BadRequest(
                    "the body is not valid JSON: " + e.getOriginalMessage().replace('\n', ' '));
        } catch (IOException e) {
            throw new BadRequest("the body could not be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new BadRequest("the body must be a JSON object with features and entities");
        }
        List<FeatureRef> features = features(root.get("features"), catalog, limits);
        JsonNode entitiesNode = root.get("entities");
        if (entitiesNode == null || entitiesNode.isNull()) {
            throw new BadRequest("entities: missing; e.g. {\"user_id\": [\"u1\", \"u2\"]}");
        }
        if (!entitiesNode.isObject() || entitiesNode.size() != 1) {
            throw new BadRequest(
                    "entities: must be an object with one entity column mapped to a list of keys,"
                            + " e.g. {\"user_id\": [\"u1\", \"u2\"]}");
        }
        Map.Entry<String, JsonNode> column = entitiesNode.fields().next();
        String entityName = column.getKey();
        for (FeatureRef ref : features) {
            String wanted = catalog.entityOf(ref.view());
            if (!wanted.equals(entityName)) {
                throw new BadRequest(
                        String.format(
                                "entities: '%s' is not the entity of view '%s', whose entity is"
                                        + " '%s'",
                                entityName, ref.view(), wanted));
            }
        }
        String field = "entities." + entityName;
        JsonNode list = column.getValue();
        if (!list.isArray()) {
            throw new BadRequest(field + ": must be a list of entity keys");
        }
        if (list.isEmpty()) {
            throw new BadRequest(field + ": no entity keys");
        }
        if (list.size() > limits.maxEntities()) {
            throw new BadRequest(
                    String.format(
                            "%s: %d entity keys, more than the limit of %d per request",
                            field, list.size(), limits.maxEntities()));
        }
        List<JsonNode> keys = new ArrayList<>(list.size());
        List<String> entities = new ArrayList<>(list.size());
        Iterator<JsonNode> it = list.elements();
        for (int i = 0; it.hasNext(); i++) {
            JsonNode key = it.next();
            if (!key.isTextual() && !key.isIntegralNumber()) {
                throw new BadRequest(
                        String.format(
                                "%s[%d]: must be a string or an integer, got %s",
                                field, i, key.getNodeType().name().toLowerCase()));
            }
            if (key.asText().isBlank()) {
                throw new BadRequest(String.format("%s[%d]: empty entity key", field, i));
            }
            int lone = StrictText.loneSurrogate(key.asText());
            if (lone >= 0) {
                // Its UTF-8 form, in which the store keeps keys, would be another key's.
                throw new BadRequest(
                        String.format(
                                "%s[%d]: not valid Unicode (an unpaired surrogate at character"
                                        + " %d)",
                                field, i, lone));
            }
            keys.add(key);
            entities.add(key.asText());
        }
        JsonNode full = root.get("full_feature_names");
        if (full != null && !full.isNull() && !full.isBoolean()) {
            throw new BadRequest("full_feature_names: must be true or false");
        }
        boolean fullFeatureNames = full != null && full.asBoolean();
        refuseCollisions(features, fullFeatureNames);
        return new OnlineRequest(
                features,
                entityName,
                List.copyOf(keys),
                List.copyOf(entities),
                fullFeatureNames,
                at(root.get("at"), now));
    }

    /**
     * Refuses, as Feast does, a feature asked for twice, and without {@code full_feature_names} two
     * features of one name from different views: the response's columns would not tell them apart.
     */
    private static void refuseCollisions(List<FeatureRef> features, boolean fullFeatureNames) {
        Map<String, List<String>> byName = new LinkedHashMap<>();
        for (FeatureRef ref : features) {
            String name = fullFeatureNames ? ref.toString() : ref.feature();
            byName.computeIfAbsent(name, n -> new ArrayList<>()).add(ref.toString());
        }
        List<String> collided =
                byName.values().stream()
                        .filter(refs -> refs.size() > 1)
                        .flatMap(List::stream)
                        .toList();
        if (!collided.isEmpty()) {
            throw new BadRequest(
                    "features: "
                            + collided
                            + (fullFeatureNames
                                    ? " asked for more than once"
                                    : " share a name; set \"full_feature_names\": true to get"
                                            + " view__feature names, or ask for one of them"));
        }
    }

    private static List<FeatureRef> features(JsonNode node, Catalog catalog, Limits limits) {
        if (node == null || node.isNull()) {
            throw new BadRequest(
                    "features: missing; e.g. [\"user_purchases:spend_24h\"] (feature services are"
                            + " not supported)");
        }
        if (!node.isArray()) {
            throw new BadRequest("features: must be a list of \"view:feature\" strings");
        }
        if (node.isEmpty()) {
            throw new BadRequest("features: no features");
        }
        if (node.size() > limits.maxFeatures()) {
            throw new BadRequest(
                    String.format(
                            "features: %d features, more than the limit of %d per request",
                            node.size(), limits.maxFeatures()));
        }
        List<FeatureRef> refs = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode f = node.get(i);
            if (!f.isTextual()) {
                throw new BadRequest(
                        String.format("features[%d]: must be a \"view:feature\" string", i));
            }
            try {
                refs.add(FeatureRef.parse(f.asText().strip()));
            } catch (IllegalArgumentException e) {
                throw new BadRequest(String.format("features[%d]: %s", i, e.getMessage()));
            }
        }
        try {
            FeatureRefs.resolve(catalog.views(), refs);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("features: " + e.getMessage());
        }
        return List.copyOf(refs);
    }

    private static Instant at(JsonNode node, long now) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new BadRequest("at: must be an ISO instant string like 2026-11-21T05:30:00Z");
        }
        try {
            return ReadTime.parse("at", node.asText(), now);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }
}
