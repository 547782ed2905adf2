package io.sluice.features.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.OnlineConfig;
import io.sluice.config.OnlineStoreType;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.SqliteOnlineStore;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The online sink on Flink's operator harness, into a real SQLite file: it marks the view written
 * through a watermark only with the batch that holds the tiles that came before it, keeps the mark
 * before it until a watermark comes, and takes the end of a bounded input for no mark.
 */
class OnlineSinkTest {

    private static final long FLUSH_MILLIS = 1_000;

    @TempDir Path dir;

    @Test
    void marksAWatermarkWithTheBatchOfTheTilesBeforeIt() throws Exception {
        Path db = dir.resolve("online.db");
        try (SqliteOnlineStore store = new SqliteOnlineStore(db)) {
            store.markWritten("v", 1, 0, 5); // left by the run before
        }
        try (var h = harness(db);
                SqliteOnlineStore store = new SqliteOnlineStore(db)) {
            h.processElement(new StreamRecord<>(tile("e", 1)));
            h.processWatermark(100);
            h.processElement(new StreamRecord<>(tile("f", 2)));
            assertThat(store.writtenThrough("v")).as("nothing flushed yet").hasValue(5);

            h.setProcessingTime(FLUSH_MILLIS);
            assertThat(store.readTiles(List.of(tile("e", 1).key(), tile("f", 2).key()), 0))
                    .hasSize(2);
            assertThat(store.writtenThrough("v")).hasValue(100);

            h.processWatermark(Long.MAX_VALUE);
            h.endInput();
            assertThat(store.writtenThrough("v")).as("the end of input is no mark").hasValue(100);
        }
    }

    @Test
    void aRestartedRunKeepsTheMarkBeforeItUntilItHasOneOfItsOwn() throws Exception {
        Path db = dir.resolve("online.db");
        try (SqliteOnlineStore store = new SqliteOnlineStore(db)) {
            store.markWritten("v", 1, 0, 5_000);
        }
        try (var h = harness(db);
                SqliteOnlineStore store = new SqliteOnlineStore(db)) {
            h.processElement(new StreamRecord<>(tile("e", 1)));
            h.setProcessingTime(FLUSH_MILLIS);
            assertThat(store.readTiles(List.of(tile("e", 1).key()), 0)).hasSize(1);
            assertThat(store.writtenThrough("v")).as("no watermark yet").hasValue(5_000);
            // Replaying from a checkpoint, its first watermark is behind the old mark: the lower
            // mark holds too, and the run moves it on from there.
            h.processWatermark(200);
            h.setProcessingTime(2 * FLUSH_MILLIS);
            assertThat(store.writtenThrough("v")).hasValue(200);
        }
    }

    /** An opened harness of a sink of view {@code v} into {@code db}. */
    private static OneInputStreamOperatorTestHarness<TileUpdate, ?> harness(Path db)
            throws Exception {
        OnlineSink sink =
                new OnlineSink(
                        new OnlineConfig(OnlineStoreType.SQLITE, db.toUri()), "v", FLUSH_MILLIS);
        var h = new OneInputStreamOperatorTestHarness<>(new SinkWriterOperatorFactory<>(sink));
        h.open();
        return h;
    }

    private static TileUpdate tile(String entity, long start) {
        return new TileUpdate(
                new OnlineStore.TileWrite(
                        new OnlineStore.TileKey("v", entity, OnlineStore.Level.FINE, start),
                        1,
                        new byte[] {1},
                        Long.MAX_VALUE),
                start);
    }
}
