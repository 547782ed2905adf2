package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The manifests in {@code deploy/k8s}, built the way kustomize builds an overlay for the few
 * features they use (resources, JSON 6902 patches with add and replace, the config map generator
 * with files, image tags, and configurations naming FlinkDeployment's fields); a kustomization
 * using anything else fails the calling test rather than being misread. The build leaves out what
 * no test here reads: the {@code namespace} set on every object and the generated ConfigMap's hash
 * suffix. Kubernetes and kustomize are not part of the build, so the tests of these manifests build
 * them with this.
 */
final class Kustomize {

    /** The manifests' directory, from the app module (where the tests run). */
    static final Path K8S = Path.of("..", "deploy", "k8s");

    /** The overlays under {@code deploy/k8s/overlays}. */
    static final List<String> OVERLAYS = List.of("local", "production");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> KUSTOMIZATION_KEYS =
            Set.of(
                    "apiVersion",
                    "kind",
                    "namespace",
                    "resources",
                    "patches",
                    "images",
                    "configMapGenerator",
                    "generatorOptions",
                    "configurations");

    /**
     * A key given twice in one mapping fails, as it does in kubectl, instead of the last winning.
     */
    private static final LoaderOptions LOADER = new LoaderOptions();

    static {
        LOADER.setAllowDuplicateKeys(false);
    }

    private Kustomize() {}

    /** An overlay of {@code deploy/k8s/overlays}, built. */
    static Built overlay(String name) throws IOException {
        return build(K8S.resolve("overlays").resolve(name));
    }

    /**
     * An overlay's or the base's objects; the file names of its generated ConfigMaps by generator
     * name; the kustomize configurations in force; and the generated ConfigMaps themselves (named
     * as the generator is, without kustomize's hash suffix), which kustomize emits beside the
     * objects.
     */
    record Built(
            List<ObjectNode> objects,
            Map<String, List<String>> configMaps,
            List<JsonNode> configurations,
            List<ObjectNode> generated) {

        List<ObjectNode> all(String kind) {
            return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
        }

        ObjectNode one(String kind, String name) {
            List<ObjectNode> found =
                    objects.stream()
                            .filter(o -> o.path("kind").asText().equals(kind))
                            .filter(o -> o.at("/metadata/name").asText().equals(name))
                            .toList();
            assertThat(found).as("%s %s", kind, name).hasSize(1);
            return found.get(0);
        }

        List<String> configMapFiles() {
            return configMaps.values().stream().flatMap(List::stream).toList();
        }
    }

    static Built build(Path dir) throws IOException {
        ObjectNode k = (ObjectNode) yaml(dir.resolve("kustomization.yaml")).get(0);
        assertThat(k.fieldNames())
                .toIterable()
                .as("kustomization features this test understands, in %s", dir)
                .isSubsetOf(KUSTOMIZATION_KEYS);
        List<ObjectNode> objects = new ArrayList<>();
        Map<String, List<String>> configMaps = new HashMap<>();
        List<JsonNode> configurations = new ArrayList<>();
        List<ObjectNode> generated = new ArrayList<>();
        for (String file : texts(k.path("configurations"))) {
            configurations.addAll(yaml(dir.resolve(file)));
        }
        for (String resource : texts(k.path("resources"))) {
            Path path = dir.resolve(resource).normalize();
            if (Files.isDirectory(path)) {
                Built base = build(path);
                objects.addAll(base.objects());
                configMaps.putAll(base.configMaps());
                configurations.addAll(base.configurations());
                generated.addAll(base.generated());
            } else {
                for (JsonNode doc : yaml(path)) {
                    objects.add((ObjectNode) doc);
                }
            }
        }
        for (JsonNode generator : k.path("configMapGenerator")) {
            assertThat(generator.fieldNames())
                    .toIterable()
                    .as("configMapGenerator features this test understands, in %s", dir)
                    .isSubsetOf("name", "files");
            configMaps.put(
                    generator.path("name").asText(),
                    texts(generator.path("files")).stream()
                            .map(f -> f.contains("=") ? f.substring(0, f.indexOf('=')) : f)
                            .map(f -> Path.of(f).getFileName().toString())
                            .toList());
            ObjectNode configMap = JSON.createObjectNode().put("apiVersion", "v1");
            configMap.put("kind", "ConfigMap");
            configMap.putObject("metadata").put("name", generator.path("name").asText());
            ObjectNode data = configMap.putObject("data");
            for (String file : texts(generator.path("files"))) {
                int eq = file.indexOf('=');
                Path source = dir.resolve(eq < 0 ? file : file.substring(eq + 1));
                data.put(
                        eq < 0 ? source.getFileName().toString() : file.substring(0, eq),
                        Files.readString(source));
            }
            generated.add(configMap);
        }
        for (JsonNode patch : k.path("patches")) {
            String kind = patch.at("/target/kind").asText();
            String name = patch.at("/target/name").asText(null);
            List<ObjectNode> targets =
                    objects.stream()
                            .filter(o -> o.path("kind").asText().equals(kind))
                            .filter(
                                    o ->
                                            name == null
                                                    || o.at("/metadata/name").asText().equals(name))
                            .toList();
            assertThat(targets)
                    .as("objects the patch of %s %s applies to", kind, name)
                    .isNotEmpty();
            for (JsonNode op : parseYaml(patch.path("patch").asText()).get(0)) {
                for (ObjectNode target : targets) {
                    apply(target, op);
                }
            }
        }
        for (JsonNode image : k.path("images")) {
            setImages(objects, configurations, image);
        }
        return new Built(objects, configMaps, configurations, generated);
    }

    /**
     * An {@code images} entry: a new name or tag for every image of that name, in containers and in
     * the fields the configurations name.
     */
    private static void setImages(
            List<ObjectNode> objects, List<JsonNode> configurations, JsonNode image) {
        String name = image.path("name").asText();
        for (ObjectNode o : objects) {
            List<String[]> paths = new ArrayList<>();
            paths.add("spec/template/spec/containers/image".split("/"));
            paths.add("spec/containers/image".split("/"));
            for (JsonNode config : configurations) {
                for (JsonNode spec : config.path("images")) {
                    if (spec.path("kind").asText().equals(o.path("kind").asText())) {
                        paths.add(spec.path("path").asText().split("/"));
                    }
                }
            }
            for (String[] path : paths) {
                setImage(o, path, 0, image, name);
            }
        }
    }

    private static void setImage(JsonNode node, String[] path, int i, JsonNode image, String name) {
        if (node.isArray()) {
            node.forEach(element -> setImage(element, path, i, image, name));
        } else if (i == path.length - 1 && node instanceof ObjectNode object) {
            String current = object.path(path[i]).asText("");
            int tag = current.lastIndexOf(':');
            String currentName =
                    tag > current.lastIndexOf('/') ? current.substring(0, tag) : current;
            if (currentName.equals(name)) {
                String newName = image.path("newName").asText(currentName);
                String newTag =
                        image.has("newTag")
                                ? ":" + image.path("newTag").asText()
                                : current.substring(currentName.length());
                object.put(path[i], newName + newTag);
            }
        } else if (node.has(path[i])) {
            setImage(node.get(path[i]), path, i + 1, image, name);
        }
    }

    /** The values at a kustomize field path, walking into every element of the arrays on it. */
    static void collect(JsonNode node, String[] path, int i, List<String> values) {
        if (node.isArray()) {
            node.forEach(element -> collect(element, path, i, values));
        } else if (i == path.length) {
            values.add(node.asText());
        } else if (node.has(path[i])) {
            collect(node.get(path[i]), path, i + 1, values);
        }
    }

    /** One JSON 6902 operation, add or replace, as kustomize applies it. */
    private static void apply(ObjectNode target, JsonNode op) {
        String kind = op.path("op").asText();
        assertThat(kind).as("patch operation").isIn("add", "replace");
        String[] path =
                Arrays.stream(op.path("path").asText().substring(1).split("/", -1))
                        .map(s -> s.replace("~1", "/").replace("~0", "~"))
                        .toArray(String[]::new);
        JsonNode parent = target;
        for (int i = 0; i < path.length - 1; i++) {
            parent =
                    parent.isArray()
                            ? parent.path(Integer.parseInt(path[i]))
                            : parent.path(path[i]);
            assertThat(parent.isContainerNode())
                    .as("%s of %s", op.path("path").asText(), target.at("/metadata/name"))
                    .isTrue();
        }
        String last = path[path.length - 1];
        JsonNode value = op.path("value");
        if (parent instanceof ObjectNode object) {
            if (kind.equals("replace")) {
                assertThat(object.has(last)).as("replaced %s", op.path("path").asText()).isTrue();
            }
            object.set(last, value);
        } else {
            ArrayNode array = (ArrayNode) parent;
            if (kind.equals("add") && last.equals("-")) {
                array.add(value);
            } else if (kind.equals("add")) {
                array.insert(Integer.parseInt(last), value);
            } else {
                assertThat(Integer.parseInt(last)).isLessThan(array.size());
                array.set(Integer.parseInt(last), value);
            }
        }
    }

    static List<JsonNode> yaml(Path file) throws IOException {
        try (Reader in = Files.newBufferedReader(file)) {
            List<JsonNode> docs = new ArrayList<>();
            for (Object doc : new Yaml(new SafeConstructor(LOADER)).loadAll(in)) {
                if (doc != null) {
                    docs.add(JSON.valueToTree(doc));
                }
            }
            return docs;
        }
    }

    static List<JsonNode> parseYaml(String text) {
        List<JsonNode> docs = new ArrayList<>();
        new Yaml(new SafeConstructor(LOADER))
                .loadAll(text)
                .forEach(doc -> docs.add(JSON.valueToTree(doc)));
        return docs;
    }

    static List<String> texts(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }
}
