package io.sluice.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.sluice.net.Ports;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;

/**
 * A real Redis Cluster of three masters (no replicas) on free loopback ports, for tests, benchmarks
 * and local runs: three processes of the Redis 6.2 binary that embedded-redis packages (as {@link
 * LocalRedis} uses), each in cluster mode with its own working directory and {@code nodes.conf}
 * under one temporary directory, keeping nothing ({@code save ""}, {@code appendonly no}).
 *
 * <p>The constructor returns only once the cluster serves: the nodes are joined with {@code CLUSTER
 * MEET}, the 16384 slots are split in three contiguous ranges with {@code CLUSTER ADDSLOTS} (6.2
 * has no {@code ADDSLOTSRANGE}), and every node has been seen to report {@code cluster_state:ok}
 * with all slots assigned and to know exactly the three nodes, each connected at its address. No
 * {@code redis-cli} is needed: the cluster is formed over Lettuce.
 *
 * <p>Addresses: {@link #uris()} gives each node as {@code redis://127.0.0.1:port}; {@link #uri()}
 * gives the whole cluster as one URI a client can bootstrap from, of the form
 *
 * <pre>redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3</pre>
 *
 * <p>that is, the scheme {@code redis-cluster} (so a reader can tell a cluster from a single
 * server) and the nodes as comma-separated {@code host:port} pairs in the authority, no path, no
 * query. With the scheme replaced by {@code redis}, it is the multi-host form Lettuce's {@code
 * RedisClusterClient.create(String)} and {@code RedisClusterURIUtil.toRedisURIs} accept. Since
 * {@code host:port,host:port} is not a server authority, {@link URI#getHost()} and {@link
 * URI#getPort()} are undefined on it: read {@link URI#getAuthority()}.
 *
 * <p>The whole cluster cannot be stopped and started again (unlike {@link LocalRedis}); {@link
 * #close()} stops every node and deletes the temporary directory. embedded-redis and Lettuce come
 * with the testkit, which is never part of the job jar.
 */
public final class LocalRedisCluster implements AutoCloseable {

    /** The scheme of {@link #uri()}. */
    public static final String SCHEME = "redis-cluster";

    private static final int NODES = 3;
    private static final int SLOTS = 16384;

    /** Redis 6.2 puts a node's cluster bus on its port plus this, and cannot be told otherwise. */
    private static final int BUS_PORT_OFFSET = 10000;

    private static final int START_ATTEMPTS = 5;
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private final Path dir;
    private final List<RedisServer> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private boolean closed;

    /**
     * Starts the three nodes and forms the cluster; if anything fails on the way, the nodes already
     * started are stopped and the temporary directory is deleted before the exception is thrown.
     *
     * @throws IOException if a node does not start, or the cluster is not formed within 30 seconds
     */
    public LocalRedisCluster() throws IOException {
        dir = Files.createTempDirectory("sluice-redis-cluster-");
        try {
            // One copy of the binary for the three nodes, inside the directory close() deletes.
            String binary =
                    ExecutableProvider.newJarResourceProvider(dir.toFile()).get().getAbsolutePath();
            for (int node = 0; node < NODES; node++) {
                startNode(binary, node);
            }
            form();
        } catch (Throwable failure) {
            try {
                close();
            } catch (IOException | RuntimeException suppressed) {
                failure.addSuppressed(suppressed);
            }
            throw failure;
        }
    }

    /** Each node's address, {@code redis://127.0.0.1:port}, in the order the nodes were started. */
    public List<URI> uris() {
        return ports.stream().map(port -> URI.create("redis://127.0.0.1:" + port)).toList();
    }

    /**
     * The cluster as one URI to bootstrap a client from: {@code
     * redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3} (see the class comment).
     */
    public URI uri() {
        return URI.create(
                SCHEME
                        + "://"
                        + ports.stream()
                                .map(port -> "127.0.0.1:" + port)
                                .collect(Collectors.joining(",")));
    }

    /** Stops every node and deletes the temporary directory; calling it again does nothing. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException failure = null;
        for (RedisServer server : servers) {
            try {
                if (server.isActive()) {
                    server.stop();
                }
            } catch (IOException | RuntimeException e) {
                failure = chain(failure, e);
            }
        }
        try {
            deleteRecursively(dir);
        } catch (IOException | UncheckedIOException e) {
            failure = chain(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void startNode(String binary, int node) throws IOException {
        Path nodeDir = Files.createDirectories(dir.resolve("node-" + node));
        IOException last = null;
        // The port is free when chosen but another process may take it before Redis binds it:
        // then the server exits at once and the node is tried again on other ports.
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port = Ports.unassignedPair(BUS_PORT_OFFSET);
            Path config = nodeDir.resolve("redis.conf");
            Files.writeString(config, config(port, nodeDir), StandardCharsets.UTF_8);
            RedisServer server = new RedisServer(port, List.of(binary, config.toString()), false);
            try {
                server.start();
            } catch (IOException e) {
                last = chain(last, e);
                continue;
            }
            servers.add(server);
            ports.add(port);
            return;
        }
        throw new IOException(
                "Redis cluster node " + node + " did not start in " + START_ATTEMPTS + " attempts",
                last);
    }

    private static String config(int port, Path nodeDir) {
        return String.join(
                "\n",
                "port " + port,
                "bind 127.0.0.1",
                // The working directory is the binary's: each node gets its own, so that their
                // nodes.conf files (written there and named absolutely besides) never collide.
                "dir " + quoted(nodeDir),
                "cluster-enabled yes",
                "cluster-config-file " + quoted(nodeDir.resolve("nodes.conf")),
                // A master turns its state ok only once it has been out of a minority for this
                // long (at least 500 ms, at most 5 s): and before it has slots it counts as one.
                // The slots come after the client has loaded, seconds after the start, so this
                // wait is paid in full. Lower would start faster but could see a node under a
                // loaded machine's stall as failed, and the cluster as down.
                "cluster-node-timeout 2000",
                // Without it a node learns its own address only from its peers' packets, and
                // until then CLUSTER NODES shows it with none.
                "cluster-announce-ip 127.0.0.1",
                "save \"\"",
                "appendonly no",
                "");
    }

    /** Lettuce to each node: slots, MEET, then polling until all three agree the cluster is ok. */
    private void form() throws IOException {
        RedisClient client = RedisClient.create();
        List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        try {
            for (int port : ports) {
                connections.add(
                        client.connect(
                                RedisURI.builder()
                                        .withHost("127.0.0.1")
                                        .withPort(port)
                                        .withTimeout(Duration.ofSeconds(10))
                                        .build()));
            }
            List<RedisCommands<String, String>> nodes =
                    connections.stream().map(StatefulRedisConnection::sync).toList();
            for (int node = 0; node < NODES; node++) {
                int from = SLOTS * node / NODES;
                int to = SLOTS * (node + 1) / NODES;
                nodes.get(node).clusterAddSlots(IntStream.range(from, to).toArray());
            }
            for (int node = 1; node < NODES; node++) {
                nodes.get(0).clusterMeet("127.0.0.1", ports.get(node));
            }
            List<String> ids = nodes.stream().map(RedisCommands::clusterMyId).toList();
            awaitFormed(nodes, ids);
        } finally {
            connections.forEach(StatefulRedisConnection::close);
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private void awaitFormed(List<RedisCommands<String, String>> nodes, List<String> ids)
            throws IOException {
        long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
        while (true) {
            List<String> notReady = new ArrayList<>();
            for (int node = 0; node < NODES; node++) {
                String problem = problem(nodes.get(node), ids);
                if (problem != null) {
                    notReady.add("node " + node + " (port " + ports.get(node) + "): " + problem);
                }
            }
            if (notReady.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException(
                        "The Redis cluster did not form within "
                                + FORM_TIMEOUT.toSeconds()
                                + " s: "
                                + String.join("; ", notReady));
            }
            try {
                // A pause between polls of a condition with a deadline (testkit's main code cannot
                // use the test-jar's Await): the nodes need a moment to gossip.
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the Redis cluster formed");
            }
        }
    }

    /** Why this node does not yet see the cluster as formed, or null if it does. */
    private String problem(RedisCommands<String, String> node, List<String> ids) {
        String info = node.clusterInfo();
        for (String expected :
                List.of(
                        "cluster_state:ok",
                        "cluster_slots_assigned:" + SLOTS,
                        "cluster_known_nodes:" + NODES)) {
            if (info.lines().map(String::strip).noneMatch(expected::equals)) {
                return "CLUSTER INFO lacks " + expected;
            }
        }
        // <id> <ip:port@cport> <flags> <master> <ping-sent> <pong-recv> <epoch> <link> <slot>...
        List<String[]> known =
                node.clusterNodes()
                        .lines()
                        .filter(line -> !line.isBlank())
                        .map(line -> line.strip().split(" "))
                        .toList();
        Set<String> seen = new HashSet<>();
        for (String[] fields : known) {
            int index = ids.indexOf(fields[0]);
            if (index < 0) {
                return "CLUSTER NODES shows an unknown node " + fields[0];
            }
            String address = "127.0.0.1:" + ports.get(index) + "@";
            Set<String> flags = Set.of(fields[2].split(","));
            if (!fields[1].startsWith(address)
                    || flags.contains("handshake")
                    || flags.contains("noaddr")
                    || flags.contains("fail?")
                    || flags.contains("fail")
                    || !fields[7].equals("connected")) {
                return "CLUSTER NODES shows " + String.join(" ", fields);
            }
            seen.add(fields[0]);
        }
        return seen.size() == NODES ? null : "CLUSTER NODES knows only " + seen;
    }

    private static String quoted(Path path) {
        return "\"" + path.toAbsolutePath() + "\"";
    }

    private static IOException chain(IOException first, Exception next) {
        if (first == null) {
            return next instanceof IOException io ? io : new IOException(next);
        }
        first.addSuppressed(next);
        return first;
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
