package io.sluice.features.online;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.nio.NioChannelOption;
import java.io.IOException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import jdk.net.ExtendedSocketOptions;

/**
 * Acknowledges what Redis sends at once instead of after the kernel's delayed-ACK timer (40 ms on
 * Linux). A client that has nothing to send for a while (a server between requests, the features
 * job's writer between its flushes) cannot carry its acknowledgement of Redis's answer on data of
 * its own, so the kernel holds it back; when Redis's send waits for that acknowledgement (with
 * Linux's {@code bbr} congestion control it often did), the rest of the answer waits for the timer.
 * On one machine this put the p99 of a 100-entity read at 50 requests a second at 45 ms instead of
 * under 10, and the features job's freshness at 20,000 events a second at 3 s instead of under 1
 * (see docs/performance.md, "Where the 100-entity tail came from"). A client that sends its next
 * command as soon as an answer arrives is not affected.
 *
 * <p>Linux's {@code TCP_QUICKACK} is not sticky: the kernel goes back to delaying acknowledgements
 * when the connection looks interactive, as a request-response connection does. So the option is
 * set again after each read, which also sends an acknowledgement the kernel was holding back. One
 * {@code setsockopt} per read; where the JDK does not offer the option (not Linux) nothing is
 * installed.
 */
final class QuickAck implements NettyCustomizer {

    private static final SocketOption<Boolean> OPTION = ExtendedSocketOptions.TCP_QUICKACK;

    /** Whether this platform's sockets take {@code TCP_QUICKACK}. */
    static final boolean SUPPORTED = supported();

    private static final ChannelHandler HANDLER = new Handler();

    @Override
    public void afterChannelInitialized(Channel channel) {
        if (SUPPORTED) {
            channel.pipeline().addFirst("sluice-quickack", HANDLER);
        }
    }

    private static boolean supported() {
        try (SocketChannel probe = SocketChannel.open()) {
            return probe.supportedOptions().contains(OPTION);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * Re-arms quick acknowledgements after every read (a new connection starts with them on; the
     * kernel turns them off once answers follow requests).
     */
    @ChannelHandler.Sharable
    private static final class Handler extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            arm(ctx.channel());
            super.channelRead(ctx, msg);
        }

        private static void arm(Channel channel) {
            // An NIO socket channel (Lettuce's transport here); another transport keeps its
            // defaults. A failure to set it must not fail the read.
            try {
                channel.config().setOption(NioChannelOption.of(OPTION), true);
            } catch (RuntimeException ignored) {
                // e.g. a channel already closed
            }
        }
    }
}
