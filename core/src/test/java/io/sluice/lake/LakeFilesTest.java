package io.sluice.lake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seam on a {@code file:} root: Flink's local file system, no setup needed. */
class LakeFilesTest {
    @TempDir Path dir;

    private URI at(String relative) {
        return dir.resolve(relative).toUri();
    }

    @Test
    void shouldWriteAFileWithItsParentsAndReadItBack() throws IOException {
        LakeFiles.write(at("raw/t/dt=2026-01-01/hr=00/_SUCCESS"), "{}".getBytes(UTF_8));

        assertThat(Files.readString(dir.resolve("raw/t/dt=2026-01-01/hr=00/_SUCCESS")))
                .isEqualTo("{}");
        assertThat(LakeFiles.read(at("raw/t/dt=2026-01-01/hr=00/_SUCCESS")))
                .isEqualTo("{}".getBytes(UTF_8));
        assertThat(LakeFiles.exists(at("raw/t"))).isTrue();
        assertThat(LakeFiles.exists(at("raw/u"))).isFalse();
    }

    @Test
    void aReaderNeverFindsAFileMissingWhileItIsReplaced() throws Exception {
        URI manifest = at("raw/t/dt=2026-01-01/hr=00/_SUCCESS");
        LakeFiles.write(manifest, "0".getBytes(UTF_8));
        Path file = dir.resolve("raw/t/dt=2026-01-01/hr=00/_SUCCESS");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger missing = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        Thread reader =
                new Thread(
                        () -> {
                            while (writing.get()) {
                                if (!Files.exists(file)) {
                                    missing.incrementAndGet();
                                }
                                reads.incrementAndGet();
                            }
                        });
        reader.start();
        try {
            for (int i = 1; i <= 2_000; i++) {
                LakeFiles.write(manifest, Integer.toString(i).getBytes(UTF_8));
            }
        } finally {
            writing.set(false);
            reader.join();
        }
        assertThat(reads.get()).as("checks made while writing").isPositive();
        assertThat(missing.get()).as("checks that found no file").isZero();
        assertThat(Files.readString(file)).isEqualTo("2000");
    }

    @Test
    void shouldReplaceAFileWholeAndLeaveNoTemporarySibling() throws IOException {
        LakeFiles.write(at("m/manifest.json"), "old, longer content".getBytes(UTF_8));
        LakeFiles.write(at("m/manifest.json"), "new".getBytes(UTF_8));

        assertThat(LakeFiles.read(at("m/manifest.json"))).isEqualTo("new".getBytes(UTF_8));
        try (Stream<Path> files = Files.list(dir.resolve("m"))) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("manifest.json");
        }
    }

    @Test
    void shouldListDirectChildrenByNameAndNothingForAMissingDirectory() throws IOException {
        LakeFiles.write(at("h/b.parquet"), new byte[7]);
        LakeFiles.write(at("h/a.parquet"), new byte[3]);
        LakeFiles.write(at("h/sub/c.parquet"), new byte[1]);

        assertThat(LakeFiles.list(at("h")))
                .extracting(
                        LakeFiles.Entry::name, LakeFiles.Entry::length, LakeFiles.Entry::directory)
                .containsExactly(
                        tuple("a.parquet", 3L, false),
                        tuple("b.parquet", 7L, false),
                        tuple("sub", 0L, true));
        assertThat(LakeFiles.list(at("nothing-here"))).isEmpty();
    }

    @Test
    void shouldStreamWritesAndReads() throws IOException {
        try (var out = LakeFiles.create(at("s/data.bin"))) {
            out.write(new byte[] {1, 2, 3});
        }
        try (var in = LakeFiles.open(at("s/data.bin"))) {
            assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
        }
    }

    @Test
    void shouldDeleteFilesAndDirectories() throws IOException {
        LakeFiles.write(at("d/x/one"), new byte[1]);
        LakeFiles.write(at("d/x/two"), new byte[1]);

        assertThat(LakeFiles.delete(at("d/x/one"), false)).isTrue();
        assertThat(LakeFiles.delete(at("d/x/one"), false)).as("already gone").isFalse();
        assertThat(LakeFiles.delete(at("d/x"), true)).isTrue();
        assertThat(Files.exists(dir.resolve("d/x"))).isFalse();
    }

    @Test
    void shouldRenameAtomicallyOnAFileSystemOnly() throws IOException {
        LakeFiles.write(at("r/staged"), "v2".getBytes(UTF_8));
        LakeFiles.write(at("r/current"), "v1".getBytes(UTF_8));

        assertThat(LakeFiles.supportsAtomicRename(at("r"))).isTrue();
        LakeFiles.rename(at("r/staged"), at("r/current"));

        assertThat(Files.readString(dir.resolve("r/current"))).isEqualTo("v2");
        assertThat(Files.exists(dir.resolve("r/staged"))).isFalse();

        URI s3 = URI.create("s3://acme-lake/sluice/x");
        assertThat(LakeFiles.supportsAtomicRename(s3)).isFalse();
        assertThatThrownBy(() -> LakeFiles.rename(s3, URI.create("s3://acme-lake/sluice/y")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("no atomic rename on s3:");
    }

    /**
     * Flink's local file system lists names, then reads each one's status: a part file renamed in
     * between (as the file sink commits an in-progress file) fails that listing. The same file
     * system here renames the in-progress file just before its status is read, once.
     */
    @Test
    void shouldListALiveDirectoryAgainWhenAFileIsRenamedWhileItIsListed() throws IOException {
        Path hour = Files.createDirectories(dir.resolve("raw/t/dt=2026-01-01/hr=00"));
        Files.writeString(hour.resolve("part-0.avro"), "a");
        Files.writeString(hour.resolve(".part-1.avro.inprogress.0"), "b");
        var committing =
                new org.apache.flink.core.fs.local.LocalFileSystem() {
                    boolean renamed;

                    @Override
                    public org.apache.flink.core.fs.FileStatus getFileStatus(
                            org.apache.flink.core.fs.Path f) throws IOException {
                        if (!renamed && f.getName().contains(".inprogress.")) {
                            renamed = true;
                            Files.move(
                                    hour.resolve(".part-1.avro.inprogress.0"),
                                    hour.resolve("part-1.avro"));
                        }
                        return super.getFileStatus(f);
                    }
                };
        org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(hour.toUri());

        assertThat(LakeFiles.listStatus(committing, path))
                .extracting(st -> st.getPath().getName())
                .containsExactlyInAnyOrder("part-0.avro", "part-1.avro");
        assertThat(committing.renamed).isTrue();
        assertThat(LakeFiles.listStatus(committing, path.suffix("/missing"))).isNull();
    }
}
