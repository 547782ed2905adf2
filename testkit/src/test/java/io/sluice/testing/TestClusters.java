package io.sluice.testing;

import io.sluice.config.StorageConfig;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.s3.LocalS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real parts integration tests run against: a Flink MiniCluster, a Kafka broker and an S3
 * server.
 */
public final class TestClusters {

    private TestClusters() {}

    /**
     * One task manager with two slots: parallelism 2, as on the 2-core machines CI runs on. Its
     * source readers wait 5 s, not Flink's 30, for a fetcher thread that does not stop, as a local
     * backfill's do ({@code Backfill.environment}).
     */
    public static MiniClusterExtension flink() {
        Configuration conf = new Configuration();
        conf.set(SourceReaderOptions.SOURCE_READER_CLOSE_TIMEOUT, 5_000L);
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setConfiguration(conf)
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /**
     * A real KRaft broker in this JVM for the test class, or a fresh one for each test ({@link
     * #perTest()}: for tests that use the same topics and groups); register it as a static
     * extension.
     */
    public static final class Kafka
            implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

        private final boolean perTest;
        private EmbeddedKafka broker;

        public Kafka() {
            this(false);
        }

        private Kafka(boolean perTest) {
            this.perTest = perTest;
        }

        /** A broker started before each test and stopped after it. */
        public static Kafka perTest() {
            return new Kafka(true);
        }

        @Override
        public void beforeAll(ExtensionContext context) {
            if (!perTest) {
                broker = EmbeddedKafka.start();
            }
        }

        @Override
        public void beforeEach(ExtensionContext context) {
            if (perTest) {
                broker = EmbeddedKafka.start();
            }
        }

        @Override
        public void afterEach(ExtensionContext context) {
            if (perTest) {
                broker.close();
            }
        }

        @Override
        public void afterAll(ExtensionContext context) {
            if (!perTest) {
                broker.close();
            }
        }

        public EmbeddedKafka broker() {
            return broker;
        }

        public String bootstrap() {
            return broker.bootstrapServers();
        }
    }

    /**
     * A real S3 server in this JVM for the test class ({@link LocalS3}, bucket {@value #BUCKET}),
     * its objects plain files under a temporary directory that is deleted afterwards; register it
     * as a static extension. Give each test its own lake with {@link #newLake()}.
     */
    public static final class S3 implements BeforeAllCallback, AfterAllCallback {

        public static final String BUCKET = "lake";

        private Path dir;
        private LocalS3 server;

        @Override
        public void beforeAll(ExtensionContext context) throws IOException {
            dir = Files.createTempDirectory("sluice-s3");
            server = LocalS3.start(dir, BUCKET);
        }

        @Override
        public void afterAll(ExtensionContext context) throws IOException {
            try {
                server.close();
            } finally {
                FileUtils.deleteDirectory(dir.toFile());
            }
        }

        public LocalS3 server() {
            return server;
        }

        /** A lake under a fresh prefix, {@code s3://lake/t-<random>}, on this server. */
        public StorageConfig newLake() {
            return server.storage("t-" + UUID.randomUUID().toString().substring(0, 8));
        }
    }
}
