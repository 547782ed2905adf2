package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.sluice.app.Kustomize.Built;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkVersion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every object of each overlay of {@code deploy/k8s}, as kustomize builds it ({@link Kustomize}),
 * validated against its schema, as far as that can be done without a cluster:
 *
 * <ul>
 *   <li>A {@code FlinkDeployment} validates against the Flink Kubernetes Operator's CRD (fields,
 *       types, enums) and parses as the operator's own {@link FlinkDeployment} type from {@code
 *       flink-kubernetes-operator-api} with no unknown field anywhere in it; its {@code
 *       flinkConfiguration} keys are Flink 2.2's own ({@link FlinkConfigKeys}), with values that
 *       parse as their options' types. The newest operator API on Maven Central is 1.10.0, whose
 *       {@link FlinkVersion} ends at {@code v1_20}: it lacks {@code v2_2}, as does the CRD inside
 *       its jar. So {@code spec.flinkVersion} is validated against the CRD of operator 1.13.0, the
 *       first release that accepts {@code v2_2} (copied into this test's resources, see {@code
 *       crds/README.md}), and left out when parsing with the 1.10.0 type. Everything else is
 *       validated by both.
 *   <li>A {@code KafkaTopic} validates against Strimzi's CRD, from Strimzi 0.51.0, the last release
 *       that serves the manifests' {@code kafka.strimzi.io/v1beta2}.
 *   <li>Every other object parses as fabric8's Kubernetes model class for its {@code apiVersion}
 *       and {@code kind}, with no unknown field anywhere in it and no JSON type coerced (a string
 *       where Kubernetes takes a number, or the reverse), and has the fields Kubernetes requires of
 *       it (a container's name and image, a Service port's port, ...). A kind without a class here
 *       fails the test rather than going unchecked.
 * </ul>
 *
 * Every object's {@code metadata} parses strictly as fabric8's {@link ObjectMeta} and its name is
 * one Kubernetes accepts. Jackson alone would not catch a misspelled field: fabric8's model classes
 * keep unknown fields in an {@code additionalProperties} map instead of failing, so every parsed
 * object is walked for a non-empty one. The operator's spec classes even say {@code ignoreUnknown},
 * which this test's mapper overrides. The last tests show each check failing on a broken copy of
 * the real manifests.
 */
class DeployManifestsSchemaTest {

    /** Kubernetes' DNS-1123 subdomain, what names of most kinds must be. */
    private static final Pattern NAME =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /** Strict: unknown properties fail, and no scalar is coerced into another JSON type. */
    private static final ObjectMapper STRICT = strictMapper();

    /** Fields of a pod spec that Kubernetes requires, relative to the pod template. */
    private static final List<String> POD_REQUIRED =
            List.of(
                    "spec/containers",
                    "spec/containers/*/name",
                    "spec/containers/*/?ports/*/containerPort",
                    "spec/containers/*/?env/*/name",
                    "spec/containers/*/?volumeMounts/*/name",
                    "spec/containers/*/?volumeMounts/*/mountPath",
                    "spec/containers/*/?readinessProbe/?httpGet/port",
                    "spec/containers/*/?livenessProbe/?httpGet/port",
                    "spec/containers/*/?startupProbe/?httpGet/port",
                    "spec/?volumes/*/name");

    /**
     * The built-in kinds the manifests use, by {@code apiVersion} and {@code kind} (read from the
     * class), with the fields Kubernetes requires of each ({@code *}: every element of an array;
     * {@code ?}: only if present).
     */
    private static final Map<String, Kind> KINDS =
            kinds(
                    new Kind(Namespace.class, List.of()),
                    new Kind(ServiceAccount.class, List.of()),
                    new Kind(ConfigMap.class, List.of()),
                    new Kind(Secret.class, List.of()),
                    new Kind(Service.class, List.of("spec/ports", "spec/ports/*/port")),
                    new Kind(
                            Deployment.class,
                            Stream.concat(
                                            Stream.of(
                                                    "spec/selector",
                                                    "spec/template",
                                                    "spec/template/spec/containers/*/image"),
                                            POD_REQUIRED.stream().map(p -> "spec/template/" + p))
                                    .toList()),
                    new Kind(
                            HorizontalPodAutoscaler.class,
                            List.of(
                                    "spec/scaleTargetRef/kind",
                                    "spec/scaleTargetRef/name",
                                    "spec/maxReplicas",
                                    "spec/?metrics/*/type")),
                    new Kind(Role.class, List.of("rules/*/verbs")),
                    new Kind(
                            RoleBinding.class,
                            List.of(
                                    "roleRef/apiGroup",
                                    "roleRef/kind",
                                    "roleRef/name",
                                    "subjects/*/kind",
                                    "subjects/*/name")));

    /** What a FlinkDeployment of these manifests needs, beyond the CRD's (which requires none). */
    private static final List<String> FLINK_DEPLOYMENT_REQUIRED =
            Stream.concat(
                            Stream.of("spec/image", "spec/flinkVersion", "spec/job/jarURI"),
                            POD_REQUIRED.stream().map(p -> "spec/podTemplate/" + p))
                    .toList();

    private static CrdSchema flinkDeployments;
    private static CrdSchema kafkaTopics;
    private static FlinkConfigKeys flinkKeys;

    private record Kind(Class<? extends HasMetadata> type, List<String> required) {}

    @BeforeAll
    static void loadSchemas() throws IOException {
        flinkDeployments = CrdSchema.load("flinkdeployments.flink.apache.org-v1.yml");
        kafkaTopics = CrdSchema.load("kafkatopics.kafka.strimzi.io.yaml");
        flinkKeys = FlinkConfigKeys.load();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void flinkDeploymentsAreTheOperatorsTypeWithFlink22Options(String overlay) throws IOException {
        Built built = Kustomize.overlay(overlay);
        List<ObjectNode> jobs = built.all("FlinkDeployment");
        assertThat(jobs).as("FlinkDeployments in %s", overlay).hasSize(3);
        List<String> problems = new ArrayList<>();
        for (ObjectNode job : jobs) {
            problems.addAll(problems(job));
            assertThat(job.at("/spec/flinkConfiguration").size())
                    .as("flinkConfiguration of %s", name(job))
                    .isPositive();
        }
        assertThat(problems).as("problems in %s", overlay).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void everyOtherObjectIsAValidKubernetesObject(String overlay) throws IOException {
        Built built = Kustomize.overlay(overlay);
        List<ObjectNode> others = new ArrayList<>(built.generated());
        built.objects().stream()
                .filter(o -> !o.path("kind").asText().equals("FlinkDeployment"))
                .forEach(others::add);
        assertThat(others.stream().map(o -> o.path("kind").asText()))
                .as("kinds in %s", overlay)
                .contains("Deployment", "Service", "ConfigMap", "KafkaTopic", "RoleBinding");
        List<String> problems = new ArrayList<>();
        for (ObjectNode o : others) {
            problems.addAll(problems(o));
        }
        assertThat(problems).as("problems in %s", overlay).isEmpty();
    }

    // ---- each check, failing on a broken copy of the real manifests

    @Test
    void aFlinkDeploymentsMisspelledFieldOrUnknownConstantFails() throws IOException {
        ObjectNode ingest = Kustomize.overlay("local").one("FlinkDeployment", "sluice-ingest");

        // A misspelled field of the FlinkDeployment itself: the CRD and the operator's type.
        ObjectNode job = ingest.deepCopy();
        ((ObjectNode) job.get("spec")).set("flinkConfiguraton", job.at("/spec/flinkConfiguration"));
        assertThat(problems(job))
                .anyMatch(p -> p.contains("spec.flinkConfiguraton: unknown field"))
                .anyMatch(
                        p -> p.contains("FlinkDeployment type") && p.contains("flinkConfiguraton"));

        // A misspelled field in its pod template: fabric8's Container keeps it, the walk finds it.
        job = ingest.deepCopy();
        ((ObjectNode) job.at("/spec/podTemplate/spec/containers/0"))
                .put("imagePullPolice", "Always");
        assertThat(problems(job))
                .anyMatch(p -> p.contains("imagePullPolice: unknown field"))
                .anyMatch(p -> p.contains("containers[0]") && p.contains("[imagePullPolice]"));

        // A Flink version the operator does not know, and a wrong enum constant of the job.
        job = ingest.deepCopy();
        ((ObjectNode) job.get("spec")).put("flinkVersion", "v2_9");
        ((ObjectNode) job.at("/spec/job")).put("upgradeMode", "snapshot");
        assertThat(problems(job))
                .anyMatch(p -> p.contains("spec.flinkVersion: \"v2_9\" is not one of"))
                .anyMatch(p -> p.contains("spec.job.upgradeMode: \"snapshot\" is not one of"));
    }

    @Test
    void aFlinkConfigurationKeyFlinkDoesNotReadOrAValueItCannotParseFails() throws IOException {
        // A misspelled key, a misspelled S3 key, a value of the wrong type.
        ObjectNode job = Kustomize.overlay("local").one("FlinkDeployment", "sluice-ingest");
        ObjectNode conf = (ObjectNode) job.at("/spec/flinkConfiguration");
        conf.put("taskmanager.numberOfTaskSlot", "2");
        conf.put("s3.endpont", "http://minio:9000");
        conf.put("execution.checkpointing.interval", "ten seconds");
        assertThat(problems(job))
                .anyMatch(p -> p.contains("taskmanager.numberOfTaskSlot is no Flink 2.2 option"))
                .anyMatch(p -> p.contains("s3.endpont") && p.contains("fs.s3a.endpont"))
                .anyMatch(p -> p.contains("\"ten seconds\" of execution.checkpointing.interval"));
    }

    @Test
    void aDeploymentsMisspelledFieldMissingFieldOrCoercedTypeFails() throws IOException {
        Built built = Kustomize.overlay("local");
        // A misspelled container field and a container without an image; a number as a string;
        // an environment variable's value as a number.
        ObjectNode serve = built.one("Deployment", "sluice-serve").deepCopy();
        ObjectNode container = (ObjectNode) serve.at("/spec/template/spec/containers/0");
        container.set("readinesProbe", container.get("readinessProbe"));
        container.remove("image");
        assertThat(problems(serve))
                .anyMatch(p -> p.contains("containers[0]: unknown fields [readinesProbe]"))
                .anyMatch(p -> p.contains("spec/template/spec/containers/*/image is missing"));
        serve = built.one("Deployment", "sluice-serve").deepCopy();
        ((ObjectNode) serve.get("spec")).put("replicas", "2");
        assertThat(problems(serve))
                .anyMatch(
                        p ->
                                p.contains("not parse as the Deployment type")
                                        && p.contains("Integer"));
        serve = built.one("Deployment", "sluice-serve").deepCopy();
        ((ObjectNode) serve.at("/spec/template/spec/containers/0"))
                .putArray("env")
                .addObject()
                .put("name", "N")
                .put("value", 2);
        assertThat(problems(serve))
                .anyMatch(
                        p ->
                                p.contains("not parse as the Deployment type")
                                        && p.contains("String"));
    }

    @Test
    void otherKindsMistakesAndAnUnmappedKindFail() throws IOException {
        Built built = Kustomize.overlay("local");
        // A Service port without its port, an object with a name Kubernetes refuses.
        ObjectNode service = built.one("Service", "sluice-serve").deepCopy();
        ((ObjectNode) service.at("/spec/ports/0")).remove("port");
        ((ObjectNode) service.get("metadata")).put("name", "Sluice_Serve");
        assertThat(problems(service))
                .anyMatch(p -> p.contains("spec/ports/*/port is missing"))
                .anyMatch(p -> p.contains("name \"Sluice_Serve\""));

        // A KafkaTopic: a misspelled field, a count out of range, a metadata field misspelled.
        ObjectNode topic = built.all("KafkaTopic").get(0).deepCopy();
        ((ObjectNode) topic.get("spec")).put("partition", 3).put("replicas", 0);
        ((ObjectNode) topic.get("metadata")).put("label", "x");
        assertThat(problems(topic))
                .anyMatch(p -> p.contains("spec.partition: unknown field"))
                .anyMatch(p -> p.contains("spec.replicas: 0 is below the minimum 1"))
                .anyMatch(
                        p ->
                                p.contains("metadata: as the ObjectMeta type")
                                        && p.contains("[label]"));
        topic = built.all("KafkaTopic").get(0).deepCopy();
        topic.put("apiVersion", "kafka.strimzi.io/v1beta3");
        assertThat(problems(topic)).anyMatch(p -> p.contains("is not served by this CRD"));

        // A kind nobody mapped.
        ObjectNode budget = STRICT.createObjectNode().put("apiVersion", "policy/v1");
        budget.put("kind", "PodDisruptionBudget").putObject("metadata").put("name", "b");
        assertThat(problems(budget)).anyMatch(p -> p.contains("no schema for policy/v1"));
    }

    @Test
    void keysFromEverySourceAreValid() {
        for (String key :
                List.of(
                        "kubernetes.rest-service.exposed.type",
                        "state.backend.rocksdb.memory.managed",
                        "metrics.reporter.prom.factory.class",
                        "kubernetes.operator.job.upgrade.last-state-fallback.enabled",
                        "s3.access-key",
                        "s3.entropy.key",
                        "containerized.taskmanager.env.TZ")) {
            assertThat(flinkKeys.problem(key, key.endsWith("type") ? "ClusterIP" : "true"))
                    .as(key)
                    .isEmpty();
        }
        assertThat(flinkKeys.problem("metrics.reporter.prom", "x")).isPresent();
    }

    // ---- the checks

    /** Everything wrong with one object, each naming the object. */
    private static List<String> problems(ObjectNode o) {
        String apiVersion = o.path("apiVersion").asText();
        String kind = o.path("kind").asText();
        List<String> problems = new ArrayList<>(nameProblems(o));
        if (kind.equals("FlinkDeployment")) {
            problems.addAll(flinkDeploymentProblems(o));
        } else if (kind.equals("KafkaTopic")) {
            // No class to parse it as: its metadata is the API server's, parsed as fabric8's.
            problems.addAll(kafkaTopics.problems(o));
            parseProblems(o.path("metadata"), ObjectMeta.class)
                    .forEach(p -> problems.add("metadata: " + p));
        } else if (KINDS.containsKey(apiVersion + " " + kind)) {
            Kind k = KINDS.get(apiVersion + " " + kind);
            problems.addAll(parseProblems(o, k.type()));
            problems.addAll(missing(o, k.required()));
        } else {
            problems.add(
                    "no schema for "
                            + apiVersion
                            + " "
                            + kind
                            + ": map it in DeployManifestsSchemaTest.KINDS");
        }
        return problems.stream().map(p -> kind + " " + name(o) + ": " + p).toList();
    }

    private static List<String> flinkDeploymentProblems(ObjectNode job) {
        List<String> problems = new ArrayList<>(flinkDeployments.problems(job));
        String apiVersion = apiVersion(FlinkDeployment.class);
        if (!job.path("apiVersion").asText().equals(apiVersion)) {
            problems.add("apiVersion is not the operator type's " + apiVersion);
        }
        // The operator API on Maven Central may know fewer Flink versions than the CRD of the
        // operator that runs Flink 2.2: the CRD (above) checks spec.flinkVersion then.
        ObjectNode forType = job.deepCopy();
        String version = job.at("/spec/flinkVersion").asText();
        if (Arrays.stream(FlinkVersion.values()).noneMatch(v -> v.name().equals(version))
                && forType.get("spec") instanceof ObjectNode spec) {
            spec.remove("flinkVersion");
        }
        problems.addAll(parseProblems(forType, FlinkDeployment.class));
        problems.addAll(missing(job, FLINK_DEPLOYMENT_REQUIRED));
        for (Iterator<Map.Entry<String, JsonNode>> entries =
                        job.at("/spec/flinkConfiguration").fields();
                entries.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = entries.next();
            flinkKeys
                    .problem(entry.getKey(), entry.getValue().asText())
                    .ifPresent(p -> problems.add("flinkConfiguration: " + p));
        }
        return problems;
    }

    /** Parsed strictly as the type, with no field left over anywhere in the parsed object. */
    private static List<String> parseProblems(JsonNode o, Class<?> type) {
        try {
            Object parsed = STRICT.treeToValue(o, type);
            List<String> problems = new ArrayList<>();
            unknownFields(parsed, "", problems);
            return problems.stream()
                    .map(p -> "as the " + type.getSimpleName() + " type, " + p)
                    .toList();
        } catch (IOException | IllegalArgumentException e) {
            return List.of(
                    "does not parse as the " + type.getSimpleName() + " type: " + e.getMessage());
        }
    }

    private static List<String> nameProblems(ObjectNode o) {
        String name = name(o);
        return NAME.matcher(name).matches() && name.length() <= 253
                ? List.of()
                : List.of("name \"" + name + "\" is not a DNS-1123 subdomain");
    }

    /**
     * The non-empty {@code additionalProperties} in an object parsed as fabric8's (or the
     * operator's) model: the fields the model does not know, which it keeps instead of failing.
     */
    private static void unknownFields(Object o, String path, List<String> problems) {
        if (o instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, path + "." + k, problems));
            return;
        }
        if (o instanceof Collection<?> collection) {
            int i = 0;
            for (Object element : collection) {
                unknownFields(element, path + "[" + i++ + "]", problems);
            }
            return;
        }
        if (o == null
                || !(o.getClass().getName().startsWith("io.fabric8.")
                        || o.getClass().getName().startsWith("org.apache.flink.kubernetes."))) {
            return;
        }
        for (Class<?> c = o.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || !f.trySetAccessible()) {
                    continue;
                }
                Object value;
                try {
                    value = f.get(o);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
                if (f.getName().equals("additionalProperties") && value instanceof Map<?, ?> m) {
                    if (!m.isEmpty()) {
                        problems.add(
                                (path.isEmpty() ? "(the object)" : path.substring(1))
                                        + ": unknown fields "
                                        + m.keySet());
                    }
                } else {
                    unknownFields(value, path + "." + f.getName(), problems);
                }
            }
        }
    }

    /** The required fields that are missing or empty (see {@link #KINDS} for the paths). */
    private static List<String> missing(JsonNode o, List<String> required) {
        List<String> problems = new ArrayList<>();
        for (String path : required) {
            if (!present(o, path.split("/"), 0)) {
                problems.add(path + " is missing");
            }
        }
        return problems;
    }

    private static boolean present(JsonNode node, String[] path, int i) {
        if (i == path.length) {
            return !node.isMissingNode()
                    && !node.isNull()
                    && !(node.isContainerNode() && node.isEmpty())
                    && !(node.isTextual() && node.asText().isEmpty());
        }
        String segment = path[i];
        if (segment.equals("*")) {
            for (JsonNode element : node) {
                if (!present(element, path, i + 1)) {
                    return false;
                }
            }
            return true;
        }
        if (segment.startsWith("?")) {
            JsonNode child = node.path(segment.substring(1));
            return child.isMissingNode() || present(child, path, i + 1);
        }
        return present(node.path(segment), path, i + 1);
    }

    private static ObjectMapper strictMapper() {
        ObjectMapper mapper =
                JsonMapper.builder()
                        // The operator's spec classes say @JsonIgnoreProperties(ignoreUnknown =
                        // true), which would win over FAIL_ON_UNKNOWN_PROPERTIES: not here.
                        .annotationIntrospector(
                                new JacksonAnnotationIntrospector() {
                                    @Override
                                    public JsonIgnoreProperties.Value findPropertyIgnoralByName(
                                            MapperConfig<?> config, Annotated a) {
                                        return super.findPropertyIgnoralByName(config, a)
                                                .withoutIgnoreUnknown();
                                    }
                                })
                        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                        .build();
        // Kubernetes takes no number or boolean where it wants a string.
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    private static Map<String, Kind> kinds(Kind... kinds) {
        Map<String, Kind> byApiVersionAndKind = new LinkedHashMap<>();
        for (Kind k : kinds) {
            byApiVersionAndKind.put(apiVersion(k.type()) + " " + HasMetadata.getKind(k.type()), k);
        }
        return byApiVersionAndKind;
    }

    /**
     * The class's {@code apiVersion}: {@code v1} for the core group, {@code group/version} else.
     */
    private static String apiVersion(Class<?> type) {
        String group = HasMetadata.getGroup(type);
        return group.isEmpty()
                ? HasMetadata.getVersion(type)
                : group + "/" + HasMetadata.getVersion(type);
    }

    private static String name(JsonNode o) {
        return o.at("/metadata/name").asText();
    }
}
