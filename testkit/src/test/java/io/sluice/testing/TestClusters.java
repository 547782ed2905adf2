package io.sluice.testing;

import io.sluice.kafka.EmbeddedKafka;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** The real parts integration tests run against: a Flink MiniCluster and a Kafka broker. */
public final class TestClusters {

    private TestClusters() {}

    /** One task manager with two slots: parallelism 2, as on the 2-core machines CI runs on. */
    public static MiniClusterExtension flink() {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /** A real KRaft broker in this JVM for the test class; register it as a static extension. */
    public static final class Kafka implements BeforeAllCallback, AfterAllCallback {

        private EmbeddedKafka broker;

        @Override
        public void beforeAll(ExtensionContext context) {
            broker = EmbeddedKafka.start();
        }

        @Override
        public void afterAll(ExtensionContext context) {
            broker.close();
        }

        public EmbeddedKafka broker() {
            return broker;
        }

        public String bootstrap() {
            return broker.bootstrapServers();
        }
    }
}
