package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A CustomResourceDefinition's structural schema, applied to a custom resource the way the
 * Kubernetes API server validates one with strict field validation (kubectl's default): a field the
 * schema does not declare is an error unless its object preserves unknown fields; types, enums,
 * required fields, integer-or-string fields, {@code anyOf} and numeric bounds are checked. The
 * top-level {@code apiVersion}, {@code kind} and {@code metadata} are the API server's own and are
 * checked by the caller. A schema keyword this class does not apply is reported as a problem of its
 * own, so that a CRD using more of OpenAPI than this class knows is never passed unread. CEL rules
 * ({@code x-kubernetes-validations}) would be such a keyword; the CRDs here have none.
 */
final class CrdSchema {

    private static final Set<String> KEYWORDS =
            Set.of(
                    "type",
                    "description",
                    "properties",
                    "additionalProperties",
                    "items",
                    "required",
                    "enum",
                    "anyOf",
                    "minimum",
                    "maximum",
                    "nullable",
                    "x-kubernetes-int-or-string",
                    "x-kubernetes-preserve-unknown-fields");

    private static final Set<String> SERVER_FIELDS = Set.of("apiVersion", "kind", "metadata");

    private final String group;
    private final String kind;

    /** The served versions' schemas by version name. */
    private final Map<String, JsonNode> versions;

    private CrdSchema(String group, String kind, Map<String, JsonNode> versions) {
        this.group = group;
        this.kind = kind;
        this.versions = versions;
    }

    /** A CRD from the test class path (io/sluice/app/crds/). */
    static CrdSchema load(String file) throws IOException {
        String resource = "crds/" + file;
        try (InputStream in = CrdSchema.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no " + resource + " beside " + CrdSchema.class);
            }
            JsonNode crd = new YAMLMapper().readTree(in);
            Map<String, JsonNode> versions = new TreeMap<>();
            for (JsonNode version : crd.at("/spec/versions")) {
                if (version.path("served").asBoolean()) {
                    versions.put(
                            version.path("name").asText(), version.at("/schema/openAPIV3Schema"));
                }
            }
            return new CrdSchema(
                    crd.at("/spec/group").asText(), crd.at("/spec/names/kind").asText(), versions);
        }
    }

    String kind() {
        return kind;
    }

    /** The {@code apiVersion}s this CRD serves. */
    List<String> apiVersions() {
        return versions.keySet().stream().map(v -> group + "/" + v).toList();
    }

    /** The schema of one served {@code apiVersion}, as the CRD has it. */
    JsonNode schema(String apiVersion) {
        return versions.get(apiVersion.substring(apiVersion.indexOf('/') + 1));
    }

    /** Everything the API server would reject in this object, each with its field's path. */
    List<String> problems(JsonNode object) {
        List<String> problems = new ArrayList<>();
        String apiVersion = object.path("apiVersion").asText();
        if (!object.path("kind").asText().equals(kind)) {
            problems.add("kind " + object.path("kind").asText() + " is not this CRD's " + kind);
        } else if (!apiVersions().contains(apiVersion)) {
            problems.add(
                    "apiVersion "
                            + apiVersion
                            + " is not served by this CRD, which serves "
                            + apiVersions());
        } else {
            validate(object, schema(apiVersion), "", true, problems);
        }
        return problems;
    }

    private static void validate(
            JsonNode value, JsonNode schema, String path, boolean root, List<String> problems) {
        for (Iterator<String> keywords = schema.fieldNames(); keywords.hasNext(); ) {
            String keyword = keywords.next();
            if (!KEYWORDS.contains(keyword)) {
                problems.add(
                        at(path)
                                + ": the schema's "
                                + keyword
                                + " is not applied by this test: extend CrdSchema");
            }
        }
        if (value.isNull()) {
            if (!schema.path("nullable").asBoolean()) {
                problems.add(at(path) + ": null where the schema allows none");
            }
            return;
        }
        if (schema.path("x-kubernetes-int-or-string").asBoolean()) {
            // Its anyOf says the same: [{type: integer}, {type: string}].
            if (!value.isIntegralNumber() && !value.isTextual()) {
                problems.add(at(path) + ": must be an integer or a string, is " + value);
            }
            return;
        }
        if (schema.has("anyOf")) {
            boolean any = false;
            for (JsonNode branch : schema.get("anyOf")) {
                List<String> branchProblems = new ArrayList<>();
                validate(value, branch, path, false, branchProblems);
                any |= branchProblems.isEmpty();
            }
            if (!any) {
                problems.add(at(path) + ": " + value + " matches none of " + schema.get("anyOf"));
            }
        }
        String type = schema.path("type").asText("");
        boolean typed =
                switch (type) {
                    case "object" -> value.isObject();
                    case "array" -> value.isArray();
                    case "string" -> value.isTextual();
                    case "integer" -> value.isIntegralNumber();
                    case "number" -> value.isNumber();
                    case "boolean" -> value.isBoolean();
                    case "" -> true;
                    default -> {
                        problems.add(at(path) + ": the schema's type " + type + " is unknown");
                        yield true;
                    }
                };
        if (!typed) {
            problems.add(at(path) + ": must be of type " + type + ", is " + value);
            return;
        }
        if (schema.has("enum")) {
            boolean listed = false;
            for (JsonNode allowed : schema.get("enum")) {
                listed |= allowed.equals(value);
            }
            if (!listed) {
                problems.add(at(path) + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        if (value.isNumber()) {
            BigDecimal number = value.decimalValue();
            if (schema.has("minimum")
                    && number.compareTo(schema.get("minimum").decimalValue()) < 0) {
                problems.add(
                        at(path) + ": " + value + " is below the minimum " + schema.get("minimum"));
            }
            if (schema.has("maximum")
                    && number.compareTo(schema.get("maximum").decimalValue()) > 0) {
                problems.add(
                        at(path) + ": " + value + " is above the maximum " + schema.get("maximum"));
            }
        }
        if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                validate(value.get(i), schema.get("items"), path + "[" + i + "]", false, problems);
            }
        }
        if (value.isObject()) {
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.get("additionalProperties");
            boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
            for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
                    fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String fieldPath = path + "." + field.getKey();
                if (root && SERVER_FIELDS.contains(field.getKey())) {
                    continue; // the API server's own, whatever the CRD says of them
                } else if (properties.has(field.getKey())) {
                    validate(
                            field.getValue(),
                            properties.get(field.getKey()),
                            fieldPath,
                            false,
                            problems);
                } else if (additional != null && additional.isObject()) {
                    validate(field.getValue(), additional, fieldPath, false, problems);
                } else if (!preserve && (additional == null || !additional.asBoolean())) {
                    problems.add(at(fieldPath) + ": unknown field");
                }
            }
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    problems.add(at(path) + ": required field " + required.asText() + " missing");
                }
            }
        }
    }

    private static String at(String path) {
        return path.isEmpty() ? "(the object)" : path.substring(1);
    }
}
