package io.sluice.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lake.HourManifest;
import io.sluice.schemas.PageView;
import io.sluice.testing.AvroFiles;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.functions.sink.filesystem.InProgressFileWriter;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The completeness rule, driven message by message as the committer would drive it. */
class HourCompletionOperatorTest {

    static final long H0 = Instant.parse("2026-11-21T05:00:00Z").toEpochMilli();
    static final long LATENESS = 15 * 60_000L;
    static final long DUE = H0 + 3_600_000L + LATENESS;
    static final String HOUR = "dt=2026-11-21/hr=05";

    @TempDir Path base;

    private OneInputStreamOperatorTestHarness<CommittableMessage<FileSinkCommittable>, Void>
            harness() throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new HourCompletionOperator(
                        base.toUri().toString(),
                        "page_views",
                        PageView.getClassSchema().toString(),
                        LATENESS));
    }

    /** Commits one landing file of {@code rows} rows in H0 as checkpoint {@code checkpoint}. */
    private void commit(
            OneInputStreamOperatorTestHarness<CommittableMessage<FileSinkCommittable>, Void> h,
            long checkpoint,
            String file,
            int rows)
            throws Exception {
        AvroFiles.writePageViews(base.resolve(HOUR).resolve(file), rows, H0 + 1);
        h.processElement(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpoint, 1, 0)));
        h.processElement(
                new StreamRecord<>(
                        new CommittableWithLineage<>(
                                new FileSinkCommittable(HOUR, new Pending()), checkpoint, 0)));
    }

    private void emptyCommit(
            OneInputStreamOperatorTestHarness<CommittableMessage<FileSinkCommittable>, Void> h,
            long checkpoint)
            throws Exception {
        h.processElement(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpoint, 0, 0)));
    }

    private long manifestRows() throws Exception {
        Path success = base.resolve(HOUR).resolve(HourManifest.NAME);
        return success.toFile().exists()
                ? HourManifest.read(new org.apache.flink.core.fs.Path(base.resolve(HOUR).toUri()))
                        .get("rows")
                        .asLong()
                : -1;
    }

    @Test
    void shouldPublishOnlyOnceTheBarrierWatermarkPassesHourEndPlusLateness() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE - 1));
            h.snapshot(1, 1);
            commit(h, 1, "part-a-0.avro", 3);
            assertThat(manifestRows()).as("watermark short of due").isEqualTo(-1);

            h.processWatermark(new Watermark(DUE));
            h.snapshot(2, 2);
            emptyCommit(h, 2);
            assertThat(manifestRows()).isEqualTo(3);
        }
    }

    @Test
    void shouldPublishACheckpointOnlyOnceEveryCommitterReportedIt() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE + 1));
            h.snapshot(1, 1);
            // Two writers: the first reports its file of checkpoint 1, the second has not yet.
            AvroFiles.writePageViews(base.resolve(HOUR).resolve("part-a-0.avro"), 3, H0 + 1);
            AvroFiles.writePageViews(base.resolve(HOUR).resolve("part-b-0.avro"), 2, H0 + 2);
            h.processElement(new StreamRecord<>(new CommittableSummary<>(0, 2, 1, 1, 0)));
            h.processElement(
                    new StreamRecord<>(
                            new CommittableWithLineage<>(
                                    new FileSinkCommittable(HOUR, new Pending()), 1, 0)));
            assertThat(manifestRows()).as("one of two committers reported").isEqualTo(-1);

            h.processElement(new StreamRecord<>(new CommittableSummary<>(1, 2, 1, 1, 0)));
            assertThat(manifestRows()).as("the second's file not reported yet").isEqualTo(-1);
            h.processElement(
                    new StreamRecord<>(
                            new CommittableWithLineage<>(
                                    new FileSinkCommittable(HOUR, new Pending()), 1, 1)));
            assertThat(manifestRows()).as("both writers' rows").isEqualTo(5);
        }
    }

    @Test
    void shouldJudgeACommitByTheWatermarkAtItsBarrierNotTheCurrentOne() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE - 1));
            h.snapshot(1, 1);
            // The watermark moves on after barrier 1; rows behind it may belong to checkpoint 2.
            h.processWatermark(new Watermark(DUE + 60_000));
            commit(h, 1, "part-a-0.avro", 3);

            assertThat(manifestRows()).isEqualTo(-1);
        }
    }

    @Test
    void shouldRepublishWhenALateFileReopensACompleteHour() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE + 1));
            h.snapshot(1, 1);
            commit(h, 1, "part-a-0.avro", 3);
            assertThat(manifestRows()).isEqualTo(3);

            h.snapshot(2, 2);
            commit(h, 2, "part-b-0.avro", 1);
            assertThat(manifestRows()).isEqualTo(4);
        }
    }

    @Test
    void shouldKeepPendingHoursAcrossRestore() throws Exception {
        OperatorSubtaskState state;
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE - 1));
            h.snapshot(1, 1);
            commit(h, 1, "part-a-0.avro", 3);
            state = h.snapshot(2, 2);
        }
        try (var h = harness()) {
            h.initializeState(state);
            h.open();
            h.processWatermark(new Watermark(DUE));
            h.snapshot(3, 3);
            emptyCommit(h, 3);

            assertThat(manifestRows()).isEqualTo(3);
        }
    }

    @Test
    void shouldCompleteEverythingCommittedAfterEndOfInput() throws Exception {
        try (var h = harness()) {
            h.open();
            h.snapshot(1, 1);
            h.processWatermark(Watermark.MAX_WATERMARK);
            // Flushed at end of input, tagged with a checkpoint whose barrier never came here.
            commit(h, 2, "part-a-0.avro", 2);

            assertThat(manifestRows()).isEqualTo(2);
            assertThat(
                            HourManifest.read(
                                            new org.apache.flink.core.fs.Path(
                                                    base.resolve(HOUR).toUri()))
                                    .get("watermark")
                                    .asText())
                    .isEqualTo("end-of-input");
        }
    }

    @Test
    void shouldPublishAnHourCommittedBeforeAStartWithoutState() throws Exception {
        // A killed run committed this hour's file and never wrote its manifest.
        AvroFiles.writePageViews(base.resolve(HOUR).resolve("part-a-0.avro"), 4, H0 + 1);
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE - 1));
            h.snapshot(1, 1);
            emptyCommit(h, 1);
            assertThat(manifestRows()).as("not due yet").isEqualTo(-1);

            h.processWatermark(new Watermark(DUE));
            h.snapshot(2, 2);
            emptyCommit(h, 2);
            assertThat(manifestRows()).isEqualTo(4);
        }
    }

    @Test
    void shouldRepublishAnHourWhoseManifestMissesACommittedFile() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE));
            h.snapshot(1, 1);
            commit(h, 1, "part-a-0.avro", 3);
        }
        // Committed by a run that was killed before it could re-publish the manifest.
        AvroFiles.writePageViews(base.resolve(HOUR).resolve("part-b-0.avro"), 2, H0 + 1);
        try (var h = harness()) {
            h.open();
            h.processWatermark(new Watermark(DUE));
            h.snapshot(1, 1);
            emptyCommit(h, 1);
            assertThat(manifestRows()).isEqualTo(5);
        }
    }

    @Test
    void shouldRemoveWhatKilledRunsLeftInProgressAfterTheFirstCommit() throws Exception {
        Path dir = java.nio.file.Files.createDirectories(base.resolve(HOUR));
        Path inProgress = dir.resolve(".part-x-0.avro.inprogress.1234");
        Path staged = dir.resolve("." + HourManifest.NAME + ".5678.tmp");
        java.nio.file.Files.write(inProgress, new byte[] {1, 2, 3});
        java.nio.file.Files.write(staged, new byte[] {4});
        java.nio.file.Files.setLastModifiedTime(
                inProgress, java.nio.file.attribute.FileTime.fromMillis(1000));
        java.nio.file.Files.setLastModifiedTime(
                staged, java.nio.file.attribute.FileTime.fromMillis(1000));
        try (var h = harness()) {
            h.open();
            assertThat(inProgress).as("nothing is removed before a commit").exists();
            h.snapshot(1, 1);
            emptyCommit(h, 1);
            assertThat(inProgress).doesNotExist();
            assertThat(staged).doesNotExist();
        }
    }

    /** The operator only asks whether a committable has a file and which hour it is in. */
    private static final class Pending implements InProgressFileWriter.PendingFileRecoverable {
        @Override
        public org.apache.flink.core.fs.Path getPath() {
            return null;
        }

        @Override
        public long getSize() {
            return -1;
        }
    }
}
