package io.sluice.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.EventSerializer;
import io.sluice.event.StateKeySerializer;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest job's graph as Flink builds it: a table's landing is written and committed by as many
 * tasks as the job's parallelism, and only the manifest step runs once per table.
 */
class IngestJobTopologyTest {

    @TempDir Path root;

    @Test
    void shouldWriteAndCommitAtTheJobsParallelismWithOneManifestStepPerTable() {
        SluiceConfig config = TestConfigs.shop(root, "localhost:9092", "topology");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(3);
        IngestJob.define(env, config, false);
        StreamGraph graph = env.getStreamGraph();

        Map<String, Integer> parallelism = new HashMap<>();
        for (StreamNode node : graph.getStreamNodes()) {
            parallelism.merge(node.getOperatorName(), node.getParallelism(), Math::max);
        }
        for (TableConfig t : config.tables()) {
            assertThat(parallelism)
                    .as(t.name())
                    .containsEntry("landing-" + t.name() + ": Writer", 3)
                    .containsEntry("landing-" + t.name() + ": Committer", 3);
        }
        for (TableConfig t : config.tables()) {
            assertThat(parallelism)
                    .as(t.name())
                    .containsEntry(
                            "landing-" + t.name() + ": hour-manifests",
                            LandingSink.MANIFEST_PARALLELISM);
        }
    }

    /**
     * The one exchange of a table's pipeline carries events through their own serializer, and the
     * de-duplication state's keys are written by the key serializer that writes a key in one call
     * (the heap backend writes every key at every checkpoint).
     */
    @Test
    void shouldKeyDeduplicationWithTheFastSerializersNotPojoOrKryo() {
        SluiceConfig config = TestConfigs.shop(root, "localhost:9092", "topology");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2);
        IngestJob.define(env, config, false);
        StreamGraph graph = env.getStreamGraph();
        int dedups = 0;
        for (StreamNode node : graph.getStreamNodes()) {
            if (node.getOperatorName().startsWith("dedup-")) {
                dedups++;
                assertThat(node.getStateKeySerializer()).isInstanceOf(StateKeySerializer.class);
                assertThat(node.getTypeSerializersIn()[0]).isInstanceOf(EventSerializer.class);
            }
        }
        assertThat(dedups).isEqualTo(config.tables().size());
    }
}
