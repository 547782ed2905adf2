package io.sluice.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.sluice.config.S3Config;
import io.sluice.config.StorageConfig;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.ParquetFiles;
import io.sluice.testing.TestClusters;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream.Committer;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.core.fs.RecoverableWriter.CommitRecoverable;
import org.apache.flink.core.fs.RecoverableWriter.ResumeRecoverable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lake's file-system seam against a real S3 server (S3Proxy in this JVM, objects as plain
 * files): Flink's S3 plugin loaded by {@link LakeFileSystem}, every object checked on disk too.
 */
class S3LakeFileSystemITCase {

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    /** Above the S3 file system's smallest multipart part (5 MiB), so a part is uploaded. */
    private static final int FIRST_PART = 5 * 1024 * 1024 + 17;

    private StorageConfig lake;

    @BeforeEach
    void newLake() {
        lake = S3.newLake();
        LakeFileSystem.initialize(lake, S3.server().env());
    }

    private URI at(String relative) {
        return URI.create(lake.rootUri() + "/" + relative);
    }

    /** The plain file that S3Proxy keeps {@code relative}'s object in. */
    private Path onDisk(String relative) {
        return S3.server().objectFile(lake.rootUri().getPath().substring(1) + "/" + relative);
    }

    @Test
    void shouldWriteListReadAndDeleteObjectsThroughTheSeam() throws IOException {
        byte[] a = bytes(3, 1);
        byte[] b = bytes(7, 2);
        LakeFiles.write(at("h/b.parquet"), b);
        LakeFiles.write(at("h/a.parquet"), a);
        LakeFiles.write(at("h/sub/c.parquet"), bytes(1, 3));

        assertThat(Files.readAllBytes(onDisk("h/a.parquet"))).isEqualTo(a);
        assertThat(Files.readAllBytes(onDisk("h/b.parquet"))).isEqualTo(b);
        assertThat(LakeFiles.list(at("h")))
                .extracting(
                        LakeFiles.Entry::name, LakeFiles.Entry::length, LakeFiles.Entry::directory)
                .containsExactly(
                        tuple("a.parquet", 3L, false),
                        tuple("b.parquet", 7L, false),
                        tuple("sub", 0L, true));
        assertThat(LakeFiles.list(at("h")).get(0).uri()).isEqualTo(at("h/a.parquet"));
        assertThat(LakeFiles.read(at("h/b.parquet"))).isEqualTo(b);
        assertThat(LakeFiles.exists(at("h/sub"))).isTrue();
        assertThat(LakeFiles.exists(at("h/none"))).isFalse();
        assertThat(LakeFiles.list(at("never-written"))).isEmpty();

        byte[] replaced = "replaced".getBytes(StandardCharsets.UTF_8);
        LakeFiles.write(at("h/a.parquet"), replaced);
        assertThat(LakeFiles.read(at("h/a.parquet"))).isEqualTo(replaced);
        assertThat(Files.readAllBytes(onDisk("h/a.parquet"))).isEqualTo(replaced);

        assertThat(LakeFiles.delete(at("h/a.parquet"), false)).isTrue();
        assertThat(onDisk("h/a.parquet")).doesNotExist();
        assertThat(LakeFiles.list(at("h")))
                .extracting(LakeFiles.Entry::name)
                .containsExactly("b.parquet", "sub");
        assertThat(LakeFiles.delete(at("h"), true)).isTrue();
        assertThat(LakeFiles.list(at("h"))).isEmpty();
        assertThat(regularFilesUnder(onDisk("h"))).isEmpty();

        assertThat(LakeFiles.supportsAtomicRename(at("h"))).isFalse();
    }

    @Test
    void shouldReadASmallParquetFileInOneGetAndWriteWithoutDeletingDirectoryMarkers()
            throws IOException {
        Schema schema =
                SchemaBuilder.record("row")
                        .fields()
                        .requiredString("key")
                        .requiredLong("n")
                        .endRecord();
        Path local = Files.createTempFile("sluice-", ".parquet");
        try (ParquetWriter<GenericRecord> writer =
                AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(local))
                        .withConf(new PlainParquetConfiguration())
                        .withSchema(schema)
                        .withWriteMode(org.apache.parquet.hadoop.ParquetFileWriter.Mode.OVERWRITE)
                        .build()) {
            for (long n = 0; n < 1_000; n++) {
                writer.write(
                        new GenericRecordBuilder(schema).set("key", "k" + n).set("n", n).build());
            }
        }
        long length = Files.size(local);
        URI file = at("dt=2026-11-28/hr=01/00000.parquet");

        Map<String, Long> before = S3.server().operations();
        LakeFiles.upload(local, file);
        Files.delete(local);
        Map<String, Long> written = since(before);
        assertThat(written).as("one upload").containsEntry("putBlob", 1L);
        // Hadoop 3.3's S3A deletes the parents' directory markers after each file unless told to
        // keep them: one more request per file written.
        assertThat(written).as("a file written").doesNotContainKeys("removeBlob", "removeBlobs");

        before = S3.server().operations();
        List<Long> read = new java.util.ArrayList<>();
        try (ParquetReader<GenericRecord> reader =
                AvroParquetReader.<GenericRecord>builder(
                                ParquetFiles.parquetInput(file, length),
                                new PlainParquetConfiguration())
                        .build()) {
            for (GenericRecord r; (r = reader.read()) != null; ) {
                assertThat(r.get("key")).hasToString("k" + r.get("n"));
                read.add((Long) r.get("n"));
            }
        }
        assertThat(read).hasSize(1_000).isSorted().startsWith(0L).endsWith(999L);
        // Footer, row group and columns from one GET (S3A's open asks for the object's status
        // first); read as Parquet seeks, it was a GET for each, and a HEAD for the length.
        assertThat(since(before))
                .containsOnlyKeys("getBlob", "blobMetadata")
                .containsEntry("getBlob", 1L)
                .containsEntry("blobMetadata", 1L);

        // The same through a stream that a Flink file source opened and hands its format.
        before = S3.server().operations();
        long rows = 0;
        try (var stream = LakeFiles.open(file);
                ParquetReader<GenericRecord> reader =
                        AvroParquetReader.<GenericRecord>builder(
                                        ParquetFiles.parquetInput(stream, length),
                                        new PlainParquetConfiguration())
                                .build()) {
            while (reader.read() != null) {
                rows++;
            }
        }
        assertThat(rows).isEqualTo(1_000);
        assertThat(since(before))
                .containsOnlyKeys("getBlob", "blobMetadata")
                .containsEntry("getBlob", 1L);

        assertThatThrownBy(() -> ParquetFiles.parquetInput(file, length + 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(
                        "00000.parquet has "
                                + length
                                + " bytes, not the "
                                + (length + 1)
                                + " expected");
    }

    /** The server's operations since {@code before}, by name, those that ran. */
    private static Map<String, Long> since(Map<String, Long> before) {
        Map<String, Long> ran = new java.util.TreeMap<>();
        S3.server()
                .operations()
                .forEach(
                        (name, count) -> {
                            long n = count - before.getOrDefault(name, 0L);
                            if (n > 0) {
                                ran.put(name, n);
                            }
                        });
        return ran;
    }

    @Test
    void shouldCommitARecoverableWriteExactlyOnceAfterRecoveringFromItsSerializedResumable()
            throws IOException {
        String name = "raw/purchases/dt=2026-01-01/hr=00/part-0-0.avro";
        URI target = at(name);
        byte[] first = bytes(FIRST_PART, 11);
        byte[] second = bytes(1000, 12);

        RecoverableWriter writer = LakeFiles.fileSystem(target).createRecoverableWriter();
        assertThat(writer.supportsResume()).isTrue();
        RecoverableFsDataOutputStream out = writer.open(new org.apache.flink.core.fs.Path(target));
        out.write(first);
        byte[] checkpoint = writer.getResumeRecoverableSerializer().serialize(out.persist());
        // The task dies here: `out` is never closed, and all that survives is the checkpoint.
        assertThat(LakeFiles.exists(target)).isFalse();
        assertThat(onDisk(name)).doesNotExist();

        RecoverableWriter restarted = LakeFiles.fileSystem(target).createRecoverableWriter();
        ResumeRecoverable resumable =
                deserialize(restarted.getResumeRecoverableSerializer(), checkpoint);
        RecoverableFsDataOutputStream resumed = restarted.recover(resumable);
        resumed.write(second);
        Committer committer = resumed.closeForCommit();
        byte[] committable =
                restarted.getCommitRecoverableSerializer().serialize(committer.getRecoverable());
        assertThat(onDisk(name)).as("invisible until committed").doesNotExist();
        committer.commit();

        // Committed once more after another restart, as the file sink does when a checkpoint
        // completed but its confirmation was lost: it must not write the data twice.
        RecoverableWriter again = LakeFiles.fileSystem(target).createRecoverableWriter();
        CommitRecoverable recovered =
                deserialize(again.getCommitRecoverableSerializer(), committable);
        again.recoverForCommit(recovered).commitAfterRecovery();
        if (restarted.requiresCleanupOfRecoverableState()) {
            restarted.cleanupRecoverableState(resumable);
        }

        byte[] expected = concat(first, second);
        assertThat(LakeFiles.read(target)).isEqualTo(expected);
        assertThat(Files.readAllBytes(onDisk(name))).isEqualTo(expected);
        assertThat(regularFilesUnder(onDisk(name).getParent()))
                .as("only the committed file, no part or tail object left")
                .containsExactly(onDisk(name));
        try (Stream<Path> bucket = Files.list(S3.server().bucketDir())) {
            assertThat(bucket.map(p -> p.getFileName().toString()))
                    .as("no multipart upload left open")
                    .noneMatch(f -> f.startsWith(".mpus-") || f.startsWith(".s3proxy-mpu"));
        }
    }

    @Test
    void shouldTakeCredentialsFromTheDefaultProviderChainWithoutKeyVariables() throws IOException {
        // The chain reads these first; the build leaves them empty (testkit's pom).
        assertThat(System.getenv("AWS_ACCESS_KEY_ID")).as("AWS_ACCESS_KEY_ID").isNullOrEmpty();
        byte[] data = bytes(10, 21);
        LakeFiles.write(at("chain/x"), data);
        LocalS3 server = S3.server();
        StorageConfig noKeys =
                new StorageConfig(
                        lake.rootUri(),
                        Optional.of(
                                new S3Config(
                                        Optional.of(server.endpoint()),
                                        Optional.of("us-east-1"),
                                        true,
                                        Optional.empty())));
        // The SDK's chain reads these system properties after the environment variables.
        System.setProperty("aws.accessKeyId", server.accessKey());
        System.setProperty("aws.secretKey", server.secretKey());
        try {
            LakeFileSystem.initialize(noKeys, Map.of());

            assertThat(LakeFiles.read(at("chain/x"))).isEqualTo(data);
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretKey");
        }
    }

    @Test
    void shouldBeRefusedWithAWrongSecret() throws IOException {
        LakeFiles.write(at("secret/x"), bytes(10, 31));
        LocalS3 server = S3.server();

        LakeFileSystem.initialize(
                lake,
                Map.of(
                        LocalS3.ACCESS_KEY_ENV,
                        server.accessKey(),
                        LocalS3.SECRET_KEY_ENV,
                        "not-" + server.secretKey()));

        assertThatThrownBy(() -> LakeFiles.read(at("secret/x"))).isInstanceOf(IOException.class);
    }

    private static <T> T deserialize(SimpleVersionedSerializer<T> serializer, byte[] bytes)
            throws IOException {
        return serializer.deserialize(serializer.getVersion(), bytes);
    }

    private static byte[] bytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static List<Path> regularFilesUnder(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
