package io.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PortsTest {

    @Test
    void anUnassignedPortIsBelowTheEphemeralRangeAndFreeToBind() throws Exception {
        int[] ephemeral = Ports.ephemeralRange(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        for (int i = 0; i < 20; i++) {
            int port = Ports.unassigned();
            assertThat(port).isBetween(10_000, ephemeral[0] - 1);
            try (ServerSocket socket = new ServerSocket(port)) {
                assertThat(socket.getLocalPort()).isEqualTo(port);
            }
        }
    }

    @Test
    void aPairIsBelowTheEphemeralRangeAndBothItsPortsAreFreeToBind() throws Exception {
        int[] ephemeral = Ports.ephemeralRange(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        // Where the ephemeral range starts too low for a pair 10,000 apart below it, the kernel
        // picks the first port; both must still be free.
        boolean roomBelow = ephemeral[0] >= 21_000;
        for (int i = 0; i < 20; i++) {
            int port = Ports.unassignedPair(10_000);
            if (roomBelow) {
                assertThat(port + 10_000).isBetween(20_000, ephemeral[0] - 1);
            }
            try (ServerSocket first = new ServerSocket(port);
                    ServerSocket second = new ServerSocket(port + 10_000)) {
                assertThat(second.getLocalPort() - first.getLocalPort()).isEqualTo(10_000);
            }
        }
    }

    @Test
    void aPortHeldOrSetAsideIsNeverReturned() throws Exception {
        try (ServerSocket held = new ServerSocket(Ports.unassigned())) {
            int aside = Ports.unassigned();
            for (int i = 0; i < 200; i++) {
                assertThat(Ports.unassigned(aside))
                        .isNotEqualTo(held.getLocalPort())
                        .isNotEqualTo(aside);
            }
        }
    }

    @Test
    void theEphemeralRangeIsReadFromTheKernelsFileOrDefaultsToLinuxs(@TempDir Path dir)
            throws Exception {
        Path file = Files.writeString(dir.resolve("ip_local_port_range"), "40000\t50000\n");
        assertThat(Ports.ephemeralRange(file)).containsExactly(40000, 50000);
        assertThat(Ports.ephemeralRange(dir.resolve("missing"))).containsExactly(32768, 60999);
        Files.writeString(file, "garbage");
        assertThat(Ports.ephemeralRange(file)).containsExactly(32768, 60999);
    }
}
