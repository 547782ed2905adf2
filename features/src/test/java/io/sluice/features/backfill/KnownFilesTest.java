package io.sluice.features.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.util.Map;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;

class KnownFilesTest {

    @Test
    void shouldMakeOneWholeFileSplitPerPathFromTheKnownLengthsWithoutAskingTheFileSystem()
            throws IOException {
        // Neither file exists: a look at the file system would fail.
        Path a = new Path("s3://lake/warehouse/t/dt=2026-11-28/hr=01/00000-a.parquet");
        Path b = new Path("s3://lake/warehouse/t/dt=2026-11-28/hr=01/00003-b.parquet");
        var enumerator = new KnownFiles(Map.of(a.toString(), 1_234L, b.toString(), 98L)).create();

        assertThat(enumerator.enumerateSplits(new Path[] {a, b}, 4))
                .extracting(
                        FileSourceSplit::splitId,
                        FileSourceSplit::path,
                        FileSourceSplit::offset,
                        FileSourceSplit::length,
                        FileSourceSplit::fileSize)
                .containsExactly(tuple("0", a, 0L, 1_234L, 1_234L), tuple("1", b, 0L, 98L, 98L));
    }

    @Test
    void shouldNameAPathItWasNotGivenTheLengthOf() {
        Path unknown = new Path("s3://lake/warehouse/t/dt=2026-11-28/hr=02/00001-c.parquet");
        var enumerator = new KnownFiles(Map.of()).create();

        assertThatThrownBy(() -> enumerator.enumerateSplits(new Path[] {unknown}, 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no known length for " + unknown);
    }
}
