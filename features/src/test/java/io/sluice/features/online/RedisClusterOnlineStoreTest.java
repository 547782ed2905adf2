package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.ViewDef;
import io.sluice.redis.LocalRedisCluster;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract on a real three-master Redis Cluster (the same Redis binary in cluster mode): one
 * entity's hash lives on one slot's node, a batch of many entities is split over the nodes, and
 * every read and compare-and-set answers as on one server.
 */
class RedisClusterOnlineStoreTest extends OnlineStoreContract {

    private static LocalRedisCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = new LocalRedisCluster();
    }

    @AfterAll
    static void stopCluster() throws IOException {
        cluster.close();
    }

    @Override
    OnlineStore open() {
        return new RedisOnlineStore(cluster.uri());
    }

    /** Every master is asked: here none keeps an append-only file. */
    @Test
    void namesEachMasterThatCouldLoseAcknowledgedWrites() throws Exception {
        try (OnlineStore store = open()) {
            List<String> risks = store.durabilityRisks();
            assertThat(risks).hasSize(cluster.uris().size());
            for (URI node : cluster.uris()) {
                assertThat(risks)
                        .anySatisfy(
                                r ->
                                        assertThat(r)
                                                .contains(
                                                        "127.0.0.1:" + node.getPort(),
                                                        "appendonly no"));
            }
        }
    }

    @Test
    void spreadsEntitiesOverTheNodesAndKeepsEachOnOne() throws Exception {
        ViewDef view = view();
        long now = System.currentTimeMillis();
        List<OnlineStore.TileWrite> writes = new ArrayList<>();
        List<String> entities = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            String entity = "spread-" + now + "-" + i;
            entities.add(entity);
            EntityTiles tiles = new EntityTiles(view.tileMillis(), view.coarseMillis());
            tiles.add(new EventEntry(now - 90 * 60_000L, "a" + i, new Object[] {1.0, "c", "x"}));
            tiles.add(new EventEntry(now - 60_000L, "b" + i, new Object[] {2.0, "c", "x"}));
            writes.addAll(TileWrites.of(view, entity, tiles, tiles.tiles().keySet()));
        }
        try (OnlineStore store = open()) {
            assertThat(store.write(writes)).isEqualTo(writes.size());
        }

        Set<URI> holding = new HashSet<>();
        for (URI node : cluster.uris()) {
            try (RedisClient client = RedisClient.create(node.toString());
                    StatefulRedisConnection<String, String> c = client.connect()) {
                long here = c.sync().dbsize();
                if (here > 0) {
                    holding.add(node);
                }
                for (String key : c.sync().keys("sluice:tiles:{" + view.name() + ":spread-*")) {
                    assertThat(c.sync().hlen(key))
                            .as("all of %s's tiles in its one hash on one node", key)
                            .isEqualTo(6 + 3); // 2 fine, 2 mid, 2 coarse, 3 bookkeeping fields
                }
            }
        }
        assertThat(holding).as("nodes holding entities").hasSize(3);

        try (OnlineStore store = open()) {
            FeatureReader reader = new FeatureReader(store, List.of(view), () -> now);
            for (FeatureReader.Vector v :
                    reader.read(
                            List.of(FeatureReader.FeatureRef.parse("user_purchases:purchases_1h")),
                            entities,
                            now)) {
                assertThat(v.values().get(0).value()).as(v.entity()).isEqualTo(1L);
            }
        }
    }
}
