package io.sluice.features.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.features.training.TrainingSetBuilder;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The local environments of the jobs that read files (a backfill, a training set) close a finished
 * file-source reader after {@link Backfill#READER_CLOSE_TIMEOUT_MILLIS}, not Flink's 30 s.
 */
class LocalEnvironmentsTest {

    @Test
    void fileReadingJobsCloseTheirReadersSoonerThanFlinksDefault() {
        assertThat(SourceReaderOptions.SOURCE_READER_CLOSE_TIMEOUT.defaultValue())
                .isGreaterThan(Backfill.READER_CLOSE_TIMEOUT_MILLIS);
        for (StreamExecutionEnvironment env :
                new StreamExecutionEnvironment[] {
                    Backfill.environment(), TrainingSetBuilder.local(2).get()
                }) {
            assertThat(env.getConfiguration().get(SourceReaderOptions.SOURCE_READER_CLOSE_TIMEOUT))
                    .isEqualTo(Backfill.READER_CLOSE_TIMEOUT_MILLIS);
        }
    }
}
