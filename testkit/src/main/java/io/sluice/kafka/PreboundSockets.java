package io.sluice.kafka;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.ServerSocketFactory;

/**
 * Hands Kafka server sockets that were bound to port 0 up front. The ports must be known before
 * startup (they go into the quorum configuration), and binding early avoids the race of probing for
 * a free port and hoping nobody takes it before Kafka binds it.
 */
final class PreboundSockets implements ServerSocketFactory {
    private final Map<String, ServerSocketChannel> channels = new ConcurrentHashMap<>();

    int bind(String listener, int port) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        channels.put(listener, channel);
        // Kafka's acceptor multiplexes the channel with a selector.
        channel.configureBlocking(false);
        // A fixed port must be usable again right after a previous broker on it was killed.
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        try {
            channel.bind(new InetSocketAddress(KraftNode.HOST, port));
        } catch (BindException e) {
            throw new BindException(
                    "port "
                            + port
                            + " of "
                            + KraftNode.HOST
                            + " is in use ("
                            + e.getMessage()
                            + ")");
        }
        return channel.socket().getLocalPort();
    }

    @Override
    public ServerSocketChannel openServerSocket(
            String listener, InetSocketAddress address, int backlog, int recvBufferSize)
            throws IOException {
        ServerSocketChannel channel = channels.remove(listener);
        return channel != null
                ? channel
                : INSTANCE.openServerSocket(listener, address, backlog, recvBufferSize);
    }

    void closeUnused() {
        channels.values().forEach(c -> Utils.closeQuietly(c, "server socket"));
        channels.clear();
    }
}
