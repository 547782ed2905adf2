package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.sluice.redis.LocalRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@link QuickAck} on a real Lettuce connection to a real Redis server: after request-response
 * exchanges the kernel delays acknowledgements on a plain connection, and acknowledges at once on
 * one with {@code QuickAck}. Linux only: elsewhere the JDK has no {@code TCP_QUICKACK} and {@code
 * QuickAck} installs nothing.
 */
@EnabledOnOs(OS.LINUX)
class QuickAckTest {

    @Test
    void keepsAcknowledgingAtOnceAfterEveryRead() throws Exception {
        assertThat(QuickAck.SUPPORTED).as("TCP_QUICKACK on Linux").isTrue();
        try (LocalRedis redis = new LocalRedis()) {
            assertThat(quickAckAfterExchanges(redis, null))
                    .as("a plain connection after request-response exchanges")
                    .containsOnly(false);
            assertThat(quickAckAfterExchanges(redis, new QuickAck()))
                    .as("with QuickAck, after each answer")
                    .containsOnly(true);
        }
    }

    /** TCP_QUICKACK of the connection's socket after each of ten PINGs has been answered. */
    private static List<Boolean> quickAckAfterExchanges(LocalRedis redis, QuickAck quickAck)
            throws Exception {
        List<Channel> channels = new ArrayList<>();
        NettyCustomizer customizer =
                new NettyCustomizer() {
                    @Override
                    public void afterChannelInitialized(Channel channel) {
                        channels.add(channel);
                        if (quickAck != null) {
                            quickAck.afterChannelInitialized(channel);
                        }
                    }
                };
        ClientResources resources =
                DefaultClientResources.builder().nettyCustomizer(customizer).build();
        RedisClient client = RedisClient.create(resources, RedisURI.create(redis.uri()));
        List<Boolean> states = new ArrayList<>();
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            Channel channel = channels.get(0);
            for (int i = 0; i < 10; i++) {
                assertThat(connection.sync().ping()).isEqualTo("PONG");
                states.add(
                        channel.config()
                                .getOption(
                                        NioChannelOption.of(ExtendedSocketOptions.TCP_QUICKACK)));
            }
        } finally {
            client.shutdown();
            resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        // The first exchanges may come before the kernel has seen the connection as interactive.
        return states.subList(5, states.size());
    }
}
