package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A real three-master cluster: Lettuce's cluster client routes by slot over all three nodes. */
class LocalRedisClusterTest {

    private static final int KEYS = 1000;

    @Test
    void spreadsKeysOverThreeMastersAndKeepsAHashTagOnOneNode() throws IOException {
        List<Integer> ports;
        try (LocalRedisCluster cluster = new LocalRedisCluster()) {
            ports = cluster.uris().stream().map(URI::getPort).toList();
            assertThat(cluster.uris())
                    .hasSize(3)
                    .allSatisfy(
                            uri -> {
                                assertThat(uri.getScheme()).isEqualTo("redis");
                                assertThat(uri.getHost()).isEqualTo("127.0.0.1");
                            });
            assertThat(Set.copyOf(ports)).hasSize(3);
            assertThat(cluster.uri())
                    .hasToString(
                            "redis-cluster://"
                                    + ports.stream()
                                            .map(port -> "127.0.0.1:" + port)
                                            .collect(Collectors.joining(",")));

            // The cluster URI, read as Lettuce's multi-host form, bootstraps the cluster client.
            List<RedisURI> seeds =
                    RedisClusterURIUtil.toRedisURIs(
                            URI.create(
                                    cluster.uri()
                                            .toString()
                                            .replaceFirst("^redis-cluster:", "redis:")));
            assertThat(seeds).extracting(RedisURI::getPort).containsExactlyElementsOf(ports);
            RedisClusterClient clusterClient = RedisClusterClient.create(seeds);
            RedisClient nodeClient = RedisClient.create();
            try (StatefulRedisClusterConnection<String, String> connection =
                    clusterClient.connect()) {
                RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                assertThat(clusterClient.getPartitions().getPartitions())
                        .extracting(node -> node.getUri().getPort())
                        .containsExactlyInAnyOrderElementsOf(ports);

                Map<String, String> values = keysInDistinctSlots();
                assertThat(redis.mset(values)).isEqualTo("OK");
                List<String> keys = List.copyOf(values.keySet());
                assertThat(redis.mget(keys.toArray(String[]::new)))
                        .extracting(KeyValue::getValue)
                        .containsExactlyElementsOf(values.values());

                // The server hashes each key as Lettuce does: 1000 keys, 1000 slots.
                Set<Long> slots = new HashSet<>();
                for (String key : keys) {
                    long slot = redis.clusterKeyslot(key);
                    assertThat(slot).isEqualTo(SlotHash.getSlot(key));
                    slots.add(slot);
                }
                assertThat(slots).hasSize(KEYS);

                // Each master holds exactly the keys of its own slots, and each holds some.
                long total = 0;
                for (RedisClusterNode node : clusterClient.getPartitions().getPartitions()) {
                    long expected =
                            keys.stream()
                                    .filter(key -> node.hasSlot(SlotHash.getSlot(key)))
                                    .count();
                    long held = onNode(nodeClient, node.getUri(), n -> n.sync().dbsize());
                    assertThat(held).as("keys on %s", node.getUri()).isEqualTo(expected);
                    assertThat(held).as("keys on %s", node.getUri()).isPositive();
                    total += held;
                }
                assertThat(total).isEqualTo(KEYS);

                // One hash tag, one slot, one node: and a multi-key command across them works.
                redis.set("{a}:1", "x");
                redis.set("{a}:2", "y");
                long tagSlot = redis.clusterKeyslot("{a}:1");
                assertThat(redis.clusterKeyslot("{a}:2")).isEqualTo(tagSlot);
                assertThat(redis.mget("{a}:1", "{a}:2"))
                        .extracting(KeyValue::getValue)
                        .containsExactly("x", "y");
                // The slot's keys live on the node that owns it, none elsewhere. (A node answers
                // EXISTS on another's slot with MOVED, so list the slot; one of the 1000 keys may
                // share it.)
                List<Set<String>> tagged = new ArrayList<>();
                for (URI uri : cluster.uris()) {
                    List<String> inSlot =
                            onNode(
                                    nodeClient,
                                    RedisURI.create(uri),
                                    n -> n.sync().clusterGetKeysInSlot((int) tagSlot, 100));
                    tagged.add(
                            inSlot.stream()
                                    .filter(key -> key.startsWith("{a}"))
                                    .collect(Collectors.toSet()));
                }
                assertThat(tagged)
                        .containsExactlyInAnyOrder(Set.of("{a}:1", "{a}:2"), Set.of(), Set.of());
            } finally {
                clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                nodeClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
        // close() stopped every node.
        for (int port : ports) {
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close())
                    .isInstanceOf(ConnectException.class);
        }
    }

    /** Keys key:0, key:1, ... skipping any whose slot an earlier key has, until there are 1000. */
    private static Map<String, String> keysInDistinctSlots() {
        Map<String, String> values = new LinkedHashMap<>();
        Map<Integer, String> bySlot = new HashMap<>();
        for (int i = 0; values.size() < KEYS; i++) {
            String key = "key:" + i;
            if (bySlot.putIfAbsent(SlotHash.getSlot(key), key) == null) {
                values.put(key, "value-" + i);
            }
        }
        return values;
    }

    private static <T> T onNode(
            RedisClient client,
            RedisURI uri,
            java.util.function.Function<StatefulRedisConnection<String, String>, T> query) {
        try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
            return query.apply(connection);
        }
    }
}
