package io.sluice.app;

import static io.sluice.app.Kustomize.K8S;
import static io.sluice.app.Kustomize.build;
import static io.sluice.app.Kustomize.collect;
import static io.sluice.app.Kustomize.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.Kustomize.Built;
import io.sluice.config.SluiceConfig;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.RedisOnlineStore;
import io.sluice.redis.LocalRedis;
import io.sluice.serving.Catalog;
import io.sluice.serving.FeatureServer;
import io.sluice.serving.Limits;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The feature server's Kubernetes objects in {@code deploy/k8s}, checked as YAML. Kubernetes itself
 * cannot run here (no cluster, and kustomize is not part of the build), so each overlay is built
 * the way kustomize builds it for the few features these manifests use ({@link Kustomize}); a
 * kustomization using anything else fails the test rather than being misread. The objects are then
 * checked against each other, the Dockerfile, the CLI and the server itself: the Deployment's
 * command parses as {@code sluice serve} with the port the container, probes and Service use; its
 * class path is what the Dockerfile copies; the config is the generated ConfigMap mounted where the
 * jobs mount it; the Redis is the features job's; and the probe and metrics paths are answered by a
 * real {@link FeatureServer}, the readiness one with 503 while the store fails and the liveness one
 * not. In both overlays the jobs run the server's image, and every object mounting the generated
 * ConfigMap is one whose reference kustomize renames to the generated name.
 */
class DeployManifestsTest {

    private static final Path DOCKERFILE = Path.of("..", "deploy", "Dockerfile");
    private static final String SERVE = "sluice-serve";

    /** Kinds whose references to a ConfigMap kustomize knows without being told. */
    private static final Set<String> BUILT_IN_KINDS =
            Set.of("Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob");

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * The jobs that read the tables' topics have no more source readers than any of those topics
     * has partitions: a reader without one holds the watermark back until the table's idleness.
     */
    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void everySourceReaderOfTheJobsHasAPartition(String overlay) throws IOException {
        Built built = build(K8S.resolve("overlays").resolve(overlay));
        List<Integer> partitions = new ArrayList<>();
        for (ObjectNode topic : built.all("KafkaTopic")) {
            if (!topic.at("/spec/topicName").asText().endsWith(".dlq")) {
                partitions.add(topic.at("/spec/partitions").asInt());
            }
        }
        assertThat(partitions).as("tables' topics in %s", overlay).hasSize(3);
        for (String job : List.of("sluice-ingest", "sluice-features")) {
            int parallelism =
                    Integer.parseInt(
                            built.one("FlinkDeployment", job)
                                    .at("/spec/flinkConfiguration/parallelism.default")
                                    .asText());
            assertThat(partitions)
                    .as("%s's %d readers per topic in %s", job, parallelism, overlay)
                    .allMatch(p -> p >= parallelism);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void deploymentServiceAndAutoscalerFitTogether(String overlay) throws IOException {
        Built built = build(K8S.resolve("overlays").resolve(overlay));
        assertThat(built.objects().stream().map(o -> o.path("kind").asText()))
                .as("kinds in %s", overlay)
                .contains("Deployment", "Service", "HorizontalPodAutoscaler");
        ObjectNode deployment = built.one("Deployment", SERVE);
        ObjectNode service = built.one("Service", SERVE);
        ObjectNode hpa = built.one("HorizontalPodAutoscaler", SERVE);
        assertThat(deployment.path("apiVersion").asText()).isEqualTo("apps/v1");
        assertThat(hpa.path("apiVersion").asText()).isEqualTo("autoscaling/v2");

        JsonNode pod = deployment.at("/spec/template");
        JsonNode container = onlyContainer(deployment);
        ServeCommand serve = serveCommand(container);
        int containerPort = containerPort(container, "http");
        assertThat(serve.port).as("--port").isEqualTo(containerPort);

        // The Service sends its port to the server's pods and port.
        JsonNode selector = service.at("/spec/selector");
        assertThat(selector.size()).isPositive();
        selector.fields()
                .forEachRemaining(
                        e ->
                                assertThat(pod.at("/metadata/labels").path(e.getKey()).asText())
                                        .as("pod label %s", e.getKey())
                                        .isEqualTo(e.getValue().asText()));
        assertThat(deployment.at("/spec/selector/matchLabels")).isEqualTo(selector);
        JsonNode servicePort = service.at("/spec/ports/0");
        assertThat(service.at("/spec/ports").size()).isEqualTo(1);
        assertThat(resolvePort(container, servicePort.path("targetPort"))).isEqualTo(containerPort);
        assertThat(servicePort.path("port").asInt()).isEqualTo(6566);

        // The autoscaler scales this Deployment on CPU, which needs CPU requests.
        assertThat(hpa.at("/spec/scaleTargetRef"))
                .isEqualTo(
                        json.createObjectNode()
                                .put("apiVersion", "apps/v1")
                                .put("kind", "Deployment")
                                .put("name", SERVE));
        JsonNode metric = hpa.at("/spec/metrics/0");
        assertThat(hpa.at("/spec/metrics").size()).isEqualTo(1);
        assertThat(metric.path("type").asText()).isEqualTo("Resource");
        assertThat(metric.at("/resource/name").asText()).isEqualTo("cpu");
        assertThat(metric.at("/resource/target/type").asText()).isEqualTo("Utilization");
        assertThat(metric.at("/resource/target/averageUtilization").asInt()).isBetween(1, 100);
        int min = hpa.at("/spec/minReplicas").asInt();
        int max = hpa.at("/spec/maxReplicas").asInt();
        assertThat(min).isPositive();
        assertThat(max).isGreaterThan(min);
        assertThat(deployment.at("/spec/replicas").asInt()).isBetween(min, max);
        for (String kind : List.of("requests", "limits")) {
            for (String resource : List.of("cpu", "memory")) {
                assertThat(container.at("/resources/" + kind + "/" + resource).asText())
                        .as("%s %s", kind, resource)
                        .isNotEmpty();
            }
        }

        // sluice.yaml comes from the generated ConfigMap, mounted where the jobs mount it.
        String mountPath = configMountPath(pod, container, built);
        assertThat(serve.config.path.getParent().toString()).isEqualTo(mountPath);
        assertThat(built.configMapFiles()).contains(serve.config.path.getFileName().toString());
        ObjectNode features = built.one("FlinkDeployment", "sluice-features");
        JsonNode jobContainer = features.at("/spec/podTemplate/spec/containers/0");
        assertThat(configMountPath(features.at("/spec/podTemplate"), jobContainer, built))
                .isEqualTo(mountPath);

        // The server reads the Redis the features job writes.
        assertThat(serve.online).as("--online").isNotNull();
        List<String> jobArgs = texts(features.at("/spec/job/args"));
        assertThat(serve.online.toString()).isEqualTo(jobArgs.get(jobArgs.indexOf("--online") + 1));

        // The class path is what the Dockerfile puts in the image, away from Flink's own.
        List<String> command = texts(container.path("command"));
        assertThat(command.get(0)).isEqualTo("java");
        String classPath = command.get(command.indexOf("-cp") + 1);
        List<String> copied = dockerfileCopyDestinations();
        for (String entry : classPath.split(":")) {
            String inImage = entry.endsWith("/*") ? entry.substring(0, entry.length() - 1) : entry;
            assertThat(copied).as("class path entry %s", entry).contains(inImage);
            if (entry.endsWith("/*")) {
                assertThat(inImage)
                        .doesNotStartWith("/opt/flink/")
                        .doesNotStartWith(mountPath + "/");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void probesAndMetricsAreTheServersEndpoints(String overlay, @TempDir Path dir)
            throws Exception {
        Built built = build(K8S.resolve("overlays").resolve(overlay));
        ObjectNode deployment = built.one("Deployment", SERVE);
        JsonNode container = onlyContainer(deployment);
        int port = containerPort(container, "http");
        JsonNode annotations = deployment.at("/spec/template/metadata/annotations");
        assertThat(annotations.path("prometheus.io/port").asText()).isEqualTo(String.valueOf(port));
        for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
            assertThat(resolvePort(container, container.at("/" + probe + "/httpGet/port")))
                    .as(probe)
                    .isEqualTo(port);
        }
        String ready = container.at("/readinessProbe/httpGet/path").asText();
        String live = container.at("/livenessProbe/httpGet/path").asText();
        String startup = container.at("/startupProbe/httpGet/path").asText();
        String metrics = annotations.path("prometheus.io/path").asText();

        SluiceConfig config = SluiceConfig.load(Path.of("..", "sluice.yaml"));
        Limits limits = Limits.DEFAULT;
        try (LocalRedis redis = new LocalRedis();
                OnlineStore store = new RedisOnlineStore(redis.uri());
                FeatureServer server =
                        FeatureServer.start(Catalog.of(config), store, limits, "127.0.0.1", 0)) {
            URI base = URI.create("http://127.0.0.1:" + server.port());
            for (String path : List.of(ready, live, startup, metrics)) {
                assertThat(status(base, path)).as("GET %s", path).isEqualTo(200);
            }
            redis.stop(); // a real outage: the server's Redis goes away
            assertThat(status(base, ready)).as("readiness while the store fails").isEqualTo(503);
            assertThat(status(base, live)).as("liveness while the store fails").isEqualTo(200);
            assertThat(status(base, startup)).as("startup while the store fails").isEqualTo(200);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void theServerRunsTheJobsImage(String overlay) throws IOException {
        Built built = build(K8S.resolve("overlays").resolve(overlay));
        String image = onlyContainer(built.one("Deployment", SERVE)).path("image").asText();
        List<ObjectNode> jobs = built.all("FlinkDeployment");
        assertThat(jobs).hasSize(3);
        for (ObjectNode job : jobs) {
            assertThat(job.at("/spec/image").asText())
                    .as("image of %s", job.at("/metadata/name").asText())
                    .isEqualTo(image);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void theJobsKeepTheLakeOnS3WithoutASharedVolume(String overlay) throws IOException {
        Built built = build(K8S.resolve("overlays").resolve(overlay));
        assertThat(built.all("PersistentVolumeClaim")).as("no shared volume").isEmpty();
        List<ObjectNode> jobs = built.all("FlinkDeployment");
        assertThat(jobs)
                .extracting(j -> j.at("/metadata/name").asText())
                .contains("sluice-ingest", "sluice-compact", "sluice-features");
        for (ObjectNode job : jobs) {
            String name = job.at("/metadata/name").asText();
            JsonNode container = job.at("/spec/podTemplate/spec/containers/0");
            Map<String, String> env = new HashMap<>();
            container
                    .path("env")
                    .forEach(e -> env.put(e.path("name").asText(), e.path("value").asText()));
            assertThat(env.get("SLUICE_STORAGE_ROOT")).as(name).startsWith("s3://");
            assertThat(env.get("ENABLE_BUILT_IN_PLUGINS"))
                    .as(name)
                    .startsWith("flink-s3-fs-hadoop-");
            assertThat(job.at("/spec/podTemplate/spec/volumes").toString())
                    .as(name)
                    .doesNotContain("persistentVolumeClaim");
            // The one sluice.yaml of the ConfigMap loads with the job's environment: an object
            // store root needs no online store in it (the features job passes --online).
            SluiceConfig config =
                    SluiceConfig.parse(
                            Files.readString(Path.of("..", "sluice.yaml")),
                            "sluice.yaml",
                            Path.of("/opt/sluice"),
                            n -> io.sluice.schemas.Schemas.current(n).orElse(null),
                            env);
            assertThat(config.rootUri().getScheme()).as(name).isEqualTo("s3");
            assertThat(config.online().isSet()).as(name).isFalse();
            // Credentials: a Secret's keys as environment variables, or the pod's service account.
            if (overlay.equals("local")) {
                String secret = container.at("/envFrom/0/secretRef/name").asText();
                assertThat(built.one("Secret", secret).path("stringData").fieldNames())
                        .toIterable()
                        .as(name)
                        .containsExactlyInAnyOrder("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
            } else {
                assertThat(job.at("/spec/flinkConfiguration/s3.aws.credentials.provider").asText())
                        .as(name)
                        .isEqualTo("com.amazonaws.auth.WebIdentityTokenCredentialsProvider");
                assertThat(
                                built.one("ServiceAccount", job.at("/spec/serviceAccount").asText())
                                        .at("/metadata/annotations")
                                        .path("eks.amazonaws.com/role-arn")
                                        .asText())
                        .as(name)
                        .startsWith("arn:aws:iam::");
                assertThat(container.has("envFrom")).as(name).isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "production"})
    void everyMountOfTheConfigGetsTheGeneratedName(String overlay) throws IOException {
        // The generated ConfigMap is called sluice-config-<hash>: kustomize must rewrite every
        // reference to it, which it does only for kinds it knows or fields it is told about.
        Built built = build(K8S.resolve("overlays").resolve(overlay));
        for (ObjectNode o : built.objects()) {
            if (!o.toString().contains("\"configMap\"")) {
                continue;
            }
            String kind = o.path("kind").asText();
            List<String> renamed = new ArrayList<>();
            for (JsonNode config : built.configurations()) {
                for (JsonNode ref : config.path("nameReference")) {
                    if (!ref.path("kind").asText().equals("ConfigMap")) {
                        continue;
                    }
                    for (JsonNode spec : ref.path("fieldSpecs")) {
                        if (spec.path("kind").asText().equals(kind)) {
                            collect(o, spec.path("path").asText().split("/"), 0, renamed);
                        }
                    }
                }
            }
            assertThat(BUILT_IN_KINDS.contains(kind) || renamed.contains("sluice-config"))
                    .as(
                            "%s %s mounts sluice-config where kustomize renames it",
                            kind, o.at("/metadata/name").asText())
                    .isTrue();
        }
    }

    @Test
    void productionRunsMoreServersThanLocal() throws IOException {
        Built base = build(K8S.resolve("base"));
        Built local = build(K8S.resolve("overlays").resolve("local"));
        Built production = build(K8S.resolve("overlays").resolve("production"));
        for (Built b : List.of(base, production)) {
            assertThat(b.one("Deployment", SERVE).at("/spec/replicas").asInt()).isGreaterThan(1);
            assertThat(b.one("HorizontalPodAutoscaler", SERVE).at("/spec/minReplicas").asInt())
                    .isGreaterThan(1);
        }
        for (String field : List.of("minReplicas", "maxReplicas")) {
            assertThat(
                            production
                                    .one("HorizontalPodAutoscaler", SERVE)
                                    .at("/spec/" + field)
                                    .asInt())
                    .as(field)
                    .isGreaterThan(
                            local.one("HorizontalPodAutoscaler", SERVE)
                                    .at("/spec/" + field)
                                    .asInt());
        }
        assertThat(production.one("Deployment", SERVE).at("/spec/replicas").asInt())
                .isGreaterThan(local.one("Deployment", SERVE).at("/spec/replicas").asInt());
    }

    // ---- reading the objects

    private static JsonNode onlyContainer(ObjectNode deployment) {
        JsonNode containers = deployment.at("/spec/template/spec/containers");
        assertThat(containers.size()).isEqualTo(1);
        return containers.get(0);
    }

    /** The container's command, from the main class on, parsed by the real CLI. */
    private static ServeCommand serveCommand(JsonNode container) {
        List<String> command = texts(container.path("command"));
        int main = command.indexOf(Main.class.getName());
        assertThat(main).as("%s in %s", Main.class.getName(), command).isPositive();
        List<String> args = new ArrayList<>(command.subList(main + 1, command.size()));
        args.addAll(texts(container.path("args")));
        CommandLine.ParseResult parsed =
                new CommandLine(new Main()).parseArgs(args.toArray(String[]::new));
        assertThat(parsed.subcommand()).as("a subcommand in %s", args).isNotNull();
        return (ServeCommand) parsed.subcommand().commandSpec().userObject();
    }

    private static int containerPort(JsonNode container, String name) {
        for (JsonNode port : container.path("ports")) {
            if (port.path("name").asText().equals(name)) {
                return port.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no container port named " + name);
    }

    /** A port given by name or number, as a number of the container. */
    private static int resolvePort(JsonNode container, JsonNode port) {
        return port.isNumber() ? port.asInt() : containerPort(container, port.asText());
    }

    /** Where the pod mounts the generated config map into this container. */
    private static String configMountPath(JsonNode pod, JsonNode container, Built built) {
        List<String> volumes = new ArrayList<>();
        for (JsonNode volume : pod.at("/spec/volumes")) {
            if (built.configMaps().containsKey(volume.at("/configMap/name").asText())) {
                volumes.add(volume.path("name").asText());
            }
        }
        List<String> paths = new ArrayList<>();
        for (JsonNode mount : container.path("volumeMounts")) {
            if (volumes.contains(mount.path("name").asText())) {
                paths.add(mount.path("mountPath").asText());
            }
        }
        assertThat(paths).as("mounts of the generated config map").hasSize(1);
        return paths.get(0);
    }

    /** The last argument of every COPY in the Dockerfile: paths in the image. */
    private static List<String> dockerfileCopyDestinations() throws IOException {
        return Files.readAllLines(DOCKERFILE).stream()
                .filter(line -> line.startsWith("COPY "))
                .map(line -> line.substring(line.lastIndexOf(' ') + 1))
                .collect(Collectors.toList());
    }

    private int status(URI base, String path) throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(base.resolve(path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
