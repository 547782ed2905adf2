package io.sluice.net;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for a process that is yet to start, such as a job manager, a Redis server or a {@code
 * sluice kafka} child. A port the kernel hands out for {@code bind(0)} is an ephemeral port: once
 * released, the kernel may hand it to the next socket any process opens (a client connection,
 * another server on port 0) before the new process binds it, and that process then fails with
 * "Address already in use". So the port comes from below the ephemeral range, where the kernel
 * never assigns one on its own, and is checked to be free now.
 */
public final class Ports {

    /** Linux's ephemeral range, where {@code ip_local_port_range} cannot be read. */
    private static final int[] DEFAULT_EPHEMERAL = {32768, 60999};

    private static final int LOWEST = 10_000;

    private Ports() {}

    /**
     * A port no process holds now and none of {@code besides}, below the kernel's ephemeral range
     * where it has room (else one the kernel picks).
     */
    public static int unassigned(int... besides) throws IOException {
        return pick(0, besides);
    }

    /**
     * A port {@code p} such that no process holds {@code p} or {@code p + offset} now, both below
     * the kernel's ephemeral range where it has room (else {@code p} is one the kernel picks): for
     * a server that also binds a second port at a fixed offset, such as a Redis Cluster node's
     * cluster bus.
     */
    public static int unassignedPair(int offset) throws IOException {
        return pick(offset);
    }

    private static int pick(int offset, int... besides) throws IOException {
        int[] ephemeral = ephemeralRange(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        int below = ephemeral[0] - offset;
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            if (below - LOWEST >= 1_000) {
                port = ThreadLocalRandom.current().nextInt(LOWEST, below);
            } else {
                try (ServerSocket socket = new ServerSocket(0)) {
                    port = socket.getLocalPort();
                }
            }
            if (port + offset <= 65535
                    && Arrays.stream(besides).noneMatch(b -> b == port)
                    && isFree(port)
                    && (offset == 0 || isFree(port + offset))) {
                return port;
            }
        }
        throw new IOException(
                offset == 0
                        ? "found no free port"
                        : "found no free port p with p + " + offset + " free too");
    }

    /**
     * The first and last ephemeral port, from {@code file} ("32768\t60999"), or Linux's default.
     */
    static int[] ephemeralRange(Path file) {
        try {
            String[] parts = Files.readString(file).trim().split("\\s+");
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (IOException | RuntimeException unreadable) {
            return DEFAULT_EPHEMERAL.clone();
        }
    }

    /** Whether a server socket can bind {@code port} on every address now. */
    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
