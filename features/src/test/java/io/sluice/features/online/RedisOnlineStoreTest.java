package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.Tile;
import io.sluice.features.agg.TileCodec;
import io.sluice.redis.LocalRedis;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on a real Redis server; and what an outage looks like to a writer. */
class RedisOnlineStoreTest extends OnlineStoreContract {

    private static LocalRedis redis;

    @BeforeAll
    static void startRedis() throws IOException {
        redis = new LocalRedis();
    }

    @AfterAll
    static void stopRedis() throws IOException {
        redis.close();
    }

    @Override
    OnlineStore open() {
        return new RedisOnlineStore(redis.uri());
    }

    /**
     * The features job warns at start about a Redis that could lose tiles it acknowledged: one
     * without an append-only file, or one that syncs it less often than at every write.
     */
    @Test
    void namesWhatCouldUndoAcknowledgedWrites(@TempDir Path dir) throws Exception {
        try (RedisOnlineStore store = new RedisOnlineStore(redis.uri())) {
            assertThat(store.durabilityRisks())
                    .singleElement()
                    .asString()
                    .contains("127.0.0.1:" + redis.uri().getPort(), "appendonly no");
        }
        try (LocalRedis durable = new LocalRedis(dir);
                RedisOnlineStore store = new RedisOnlineStore(durable.uri())) {
            assertThat(store.durabilityRisks()).isEmpty();
            try (RedisClient client = RedisClient.create(durable.uri().toString());
                    StatefulRedisConnection<String, String> admin = client.connect()) {
                admin.sync().configSet("appendfsync", "everysec");
            }
            assertThat(store.durabilityRisks())
                    .singleElement()
                    .asString()
                    .contains("everysec (appendfsync)");
        }
    }

    @Test
    void failsFastWhileRedisIsDownAndWorksAgainWhenItIsBack() throws Exception {
        try (RedisOnlineStore store = new RedisOnlineStore(redis.uri())) {
            Tile tile = new Tile(0);
            tile.add(new EventEntry(1, "a", new Object[] {1.0, "c", "card"}));
            OnlineStore.TileWrite write =
                    new OnlineStore.TileWrite(
                            new OnlineStore.TileKey("v", "outage", OnlineStore.Level.FINE, 0),
                            1,
                            TileCodec.encodeFine(tile),
                            System.currentTimeMillis() + 60_000);
            assertThat(store.write(List.of(write))).isEqualTo(1);
            redis.stop();
            try {
                assertThatThrownBy(() -> store.write(List.of(write)))
                        .isInstanceOf(IOException.class);
            } finally {
                redis.start();
            }
            // After a restart the server has lost the script and the data (no persistence here):
            // the store reloads the script and writes again.
            io.sluice.testing.Await.until(
                    "the store reconnected",
                    java.time.Duration.ofSeconds(30),
                    () -> {
                        try {
                            return store.write(List.of(write)) == 1;
                        } catch (IOException stillDown) {
                            return false;
                        }
                    });
            assertThat(store.readTiles(List.of(write.key()), System.currentTimeMillis()))
                    .containsKey(write.key());
        }
    }

    @Test
    void opensBeforeRedisIsUpAndConnectsOnceItIs() throws Exception {
        try (LocalRedis late = new LocalRedis()) {
            late.stop();
            try (RedisOnlineStore store = new RedisOnlineStore(late.uri())) {
                OnlineStore.TileKey key =
                        new OnlineStore.TileKey("v", "late", OnlineStore.Level.FINE, 0);
                assertThatThrownBy(() -> store.readTiles(List.of(key), 0))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("cannot connect to Redis at " + late.uri());
                late.start();
                assertThat(store.write(List.of(write("late", 0, Long.MAX_VALUE)))).isEqualTo(1);
                assertThat(store.readTiles(List.of(key), System.currentTimeMillis()))
                        .containsOnlyKeys(key);
            }
        }
    }

    @Test
    void keepsOneHashPerEntityThatSweepsExpiredTilesAndExpiresWithItsLatest() throws Exception {
        long now = System.currentTimeMillis();
        String entity = "sweep-" + now;
        // A store that may sweep a hash on every write.
        try (RedisOnlineStore store = new RedisOnlineStore(redis.uri(), 0);
                io.lettuce.core.RedisClient client =
                        io.lettuce.core.RedisClient.create(redis.uri().toString());
                var redisConnection = client.connect()) {
            var sync = redisConnection.sync();
            String hash = new String(TileHash.key("v", entity));
            List<OnlineStore.TileWrite> expired = expired(entity, now);
            assertThat(store.write(expired)).isEqualTo(300);
            // Each later write sweeps some fields: after enough of them, the expired ones are
            // gone.
            assertThat(sync.exists(hash))
                    .as("a hash of expired tiles only expires at once")
                    .isZero();
            store.write(List.of(write(entity, 100, now + 60_000)));
            store.write(expired);
            assertThat(sync.hlen(hash)).as("one live tile keeps the hash").isGreaterThan(4);
            for (int round = 0; round < 200 && sync.hlen(hash) > 4; round++) {
                store.write(List.of(write(entity, 100, now + 60_000)));
            }
            assertThat(sync.hkeys(hash)).containsExactlyInAnyOrder("f100", "~x", "~c", "~s");
            assertThat(sync.pttl(hash)).isPositive().isLessThanOrEqualTo(60_000);
            assertThat(sync.keys("sluice:tiles:{v:" + entity + "}*")).hasSize(1);
        }
    }

    @Test
    void sweepsAHashAtMostOnceInItsInterval() throws Exception {
        long now = System.currentTimeMillis();
        String entity = "spaced-" + now;
        try (RedisOnlineStore hourly = new RedisOnlineStore(redis.uri(), 3_600_000);
                RedisOnlineStore always = new RedisOnlineStore(redis.uri(), 0);
                io.lettuce.core.RedisClient client =
                        io.lettuce.core.RedisClient.create(redis.uri().toString());
                var redisConnection = client.connect()) {
            var sync = redisConnection.sync();
            String hash = new String(TileHash.key("v", entity));
            List<OnlineStore.TileWrite> tiles = new java.util.ArrayList<>(expired(entity, now));
            tiles.add(write(entity, 1_000, now + 60_000));
            long before = System.currentTimeMillis();
            hourly.write(tiles);
            // The first write of a hash sweeps it (part of it: 64 fields at most) ...
            long size = sync.hlen(hash);
            assertThat(size).isLessThan(301 + 3).isGreaterThan(4);
            String cursor = sync.hget(hash, "~c");
            assertThat(Long.parseLong(sync.hget(hash, "~s")))
                    .isBetween(before + 3_600_000, System.currentTimeMillis() + 3_600_000);
            // ... and later ones within the hour do not, whichever writer sends them: the next
            // sweep's time is the hash's.
            for (int round = 0; round < 5; round++) {
                hourly.write(List.of(write(entity, 1_000, now + 60_000)));
                always.write(List.of(write(entity, 1_000, now + 60_000)));
            }
            assertThat(sync.hlen(hash)).isEqualTo(size);
            assertThat(sync.hget(hash, "~c")).isEqualTo(cursor);
            // Readers skip the expired fields still there.
            OnlineStore.TileWrite left =
                    expired(entity, now).stream()
                            .filter(w -> sync.hexists(hash, "f" + w.key().start()))
                            .findFirst()
                            .orElseThrow();
            assertThat(hourly.readTiles(List.of(left.key(), tiles.get(300).key()), now))
                    .containsOnlyKeys(tiles.get(300).key());
            // Once the time has come, a write sweeps again.
            sync.hset(hash, "~s", Long.toString(now));
            always.write(List.of(write(entity, 1_000, now + 60_000)));
            assertThat(sync.hlen(hash)).isLessThan(size);
        }
    }

    /** 300 tiles of {@code entity} that expired before {@code now}. */
    private static List<OnlineStore.TileWrite> expired(String entity, long now) {
        List<OnlineStore.TileWrite> expired = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            expired.add(write(entity, i, now - 1));
        }
        return expired;
    }

    @Test
    void aStoredTileIsLiveUntilItsExpireAtAndAMalformedOneIsNamed() {
        assertThat(TileHash.livePayload(stored("1700000060000,7,payload"), 1_700_000_059_999L))
                .isEqualTo(bytes("payload"));
        assertThat(TileHash.livePayload(stored("1700000060000,7,payload"), 1_700_000_060_000L))
                .isNull();
        // A value in the middle of Lettuce's buffer: read from its position to its limit.
        java.nio.ByteBuffer window = java.nio.ByteBuffer.wrap(bytes("xx99,1,tile,yy"), 2, 9);
        assertThat(TileHash.livePayload(window, 98)).isEqualTo(bytes("tile"));
        assertThatThrownBy(() -> TileHash.livePayload(stored("17x,7,p"), 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("expireAt '17x'");
        assertThatThrownBy(() -> TileHash.livePayload(stored("17,7"), 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no ',' after byte 3");
    }

    @Test
    void anAnswerKeepsTheLivePayloadsInFieldOrderAndFailsWhereAValueIsNotATile() {
        TileHash.Fields fields =
                TileHash.Fields.of(
                        List.of(new OnlineStore.TileRange(OnlineStore.Level.FINE, 0, 4, 1)));
        TileHash.LivePayloads output = new TileHash.LivePayloads(1_000);
        output.multi(4);
        output.set(stored("2000,3,a"));
        output.set(null); // a field the hash lacks
        output.set(stored("1000,4,expired"));
        output.set(stored("1001,5,b"));
        OnlineStore.Found found = TileHash.found(fields, output.get());
        assertThat(found.fine()).containsOnlyKeys(0L, 3L);
        assertThat(found.fine().get(0L)).isEqualTo(bytes("a"));
        assertThat(found.fine().get(3L)).isEqualTo(bytes("b"));

        TileHash.LivePayloads bad = new TileHash.LivePayloads(1_000);
        bad.multi(2);
        bad.set(stored("2000,3,a"));
        bad.set(stored("not a tile"));
        assertThatThrownBy(() -> TileHash.found(fields, bad.get()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not a Sluice tile");
    }

    private static java.nio.ByteBuffer stored(String value) {
        return java.nio.ByteBuffer.wrap(bytes(value));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void hmgetArgumentsAreWhatLettucesOwnHmgetSends() {
        // Fields of one to fifteen digits' starts, so lengths of one and two digits, at each level.
        List<OnlineStore.TileRange> ranges =
                List.of(
                        new OnlineStore.TileRange(OnlineStore.Level.FINE, 0, 10, 1),
                        new OnlineStore.TileRange(
                                OnlineStore.Level.MID,
                                1_700_000_000_000L,
                                1_700_002_000_000L,
                                360_000),
                        new OnlineStore.TileRange(
                                OnlineStore.Level.COARSE,
                                100_000_000_000_000L,
                                100_000_010_800_000L,
                                3_600_000));
        TileHash.Fields fields = TileHash.Fields.of(ranges);
        byte[] key = TileHash.key("view", "entity-ü");
        var lettuces =
                new io.lettuce.core.protocol.CommandArgs<>(
                                io.lettuce.core.codec.ByteArrayCodec.INSTANCE)
                        .addKey(key)
                        .addKeys(fields.names());
        var ours = new TileHash.HmgetArgs(key, fields);

        assertThat(ours.count()).isEqualTo(lettuces.count()).isEqualTo(1 + 10 + 6 + 3);
        assertThat(encoded(ours)).isEqualTo(encoded(lettuces));
        // A cluster connection routes the command by its first key.
        assertThat(ours.getFirstEncodedKey()).isEqualTo(lettuces.getFirstEncodedKey());
    }

    private static byte[] encoded(io.lettuce.core.protocol.CommandArgs<byte[], byte[]> args) {
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer();
        args.encode(buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }

    private static OnlineStore.TileWrite write(String entity, long start, long expireAt) {
        return new OnlineStore.TileWrite(
                new OnlineStore.TileKey("v", entity, OnlineStore.Level.FINE, start),
                1,
                new byte[100], // over Redis's compact-hash value limit: a real, incrementally
                // scanned hash
                expireAt);
    }
}
