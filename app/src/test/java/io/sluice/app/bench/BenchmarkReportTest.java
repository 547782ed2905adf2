package io.sluice.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarkReportTest {

    @TempDir Path dir;

    @Test
    void aRowShowsTheMedianInTheRunsFormatBoldWhenItsLabelIs() {
        assertThat(BenchmarkReport.row("rec/s", "%,.0f", List.of(3000.0, 1000.0, 2000.0)))
                .isEqualTo("| rec/s | 2,000 | [3,000, 1,000, 2,000] |");
        assertThat(BenchmarkReport.row("**a ÷ b**", "%.2f", List.of(0.5, 0.25)))
                .isEqualTo("| **a ÷ b** | **0.38** | [0.50, 0.25] |");
    }

    @Test
    void aSectionIsReplacedInPlaceAndANewOneAppended() throws Exception {
        Path file = dir.resolve("benchmarks.md");
        BenchmarkReport.update(file, "one", "first");
        BenchmarkReport.update(file, "two", "second");
        BenchmarkReport.update(file, "one", "again");
        String text = Files.readString(file);
        assertThat(text).startsWith("# Benchmarks").doesNotContain("first");
        assertThat(text.indexOf("<!-- bench:one -->\nagain\n<!-- /bench:one -->"))
                .isPositive()
                .isLessThan(text.indexOf("<!-- bench:two -->\nsecond\n<!-- /bench:two -->"));
    }
}
