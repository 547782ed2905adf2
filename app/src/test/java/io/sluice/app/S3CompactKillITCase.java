package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compact.HourCompactor;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.generate.GeneratorOptions;
import io.sluice.generate.LandingHours;
import io.sluice.lake.LakeFileSystem;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.WarehouseManifest;
import io.sluice.s3.LocalS3;
import io.sluice.testing.Await;
import io.sluice.testing.TestClusters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice compact} with the lake on S3 (S3Proxy in this JVM, objects as plain files),
 * SIGKILLed as a child JVM after it has uploaded some of an hour's bucket files and before the
 * hour's manifest, then started again with the same command: the hour ends with exactly the objects
 * a compaction on {@code file:} of the same landing hour writes, and nothing was readable through a
 * manifest in between.
 */
class S3CompactKillITCase {

    @RegisterExtension static final TestClusters.S3 S3 = new TestClusters.S3();

    @TempDir Path dir;

    @RegisterExtension final SluiceProcesses processes = new SluiceProcesses("1g");

    @Test
    void killedBeforeTheManifestThenRunAgainPublishesTheWholeHour() throws Exception {
        LocalS3 server = S3.server();
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(server.env());
        SluiceConfig config =
                ReferenceConfig.writeInto(dir.resolve("s3-run"), "localhost:1", server, env);
        LakeFileSystem.initialize(config.storage(), env);
        TableConfig purchases = config.table("purchases").orElseThrow();

        // One large hour, so that its compaction takes long enough to be caught half-way.
        Path local = dir.resolve("local");
        Instant hourStart = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(3, ChronoUnit.HOURS);
        Map<String, Long> landed =
                LandingHours.write(
                        local,
                        purchases,
                        GeneratorOptions.defaults(100_000, 5)
                                .withStart(hourStart.plusSeconds(60))
                                .withSpan(Duration.ofMinutes(58))
                                .withRates(0, 0, 0),
                        2,
                        false);
        assertThat(landed).hasSize(1);
        String hour = landed.keySet().iterator().next();
        Path rawHour = local.resolve("raw/purchases").resolve(hour);
        try (Stream<Path> files = Files.list(rawHour)) {
            for (Path f : files.toList()) {
                LakeFiles.write(
                        LakeFiles.resolve(
                                config.rootUri(), "raw/purchases/" + hour + "/" + f.getFileName()),
                        Files.readAllBytes(f));
            }
        }
        new HourCompactor(purchases, local).compact(hour, false);
        Map<String, String> expected = files(local.resolve("warehouse/purchases").resolve(hour));

        Path onDisk = server.objectFile(Demo.PREFIX + "/warehouse/purchases/" + hour);
        SluiceProcesses.Child first = compact(server, "compact-1.log");
        Await.until(
                "a bucket file uploaded",
                Duration.ofMinutes(2),
                () -> !parquetObjects(onDisk).isEmpty() || !first.isAlive());
        first.kill();
        assertThat(onDisk.resolve(WarehouseManifest.NAME))
                .as("killed before the manifest")
                .doesNotExist();
        assertThat(
                        WarehouseManifest.read(
                                LakeFiles.resolve(config.rootUri(), "warehouse/purchases/" + hour)))
                .as("no version readable through a manifest yet")
                .isEmpty();
        Map<String, String> uploaded = files(onDisk);
        System.out.printf(
                "killed after %d of %d bucket files were uploaded%n",
                uploaded.size(), expected.size() - 1);
        assertThat(uploaded.size())
                .as("some, not all, bucket files")
                .isBetween(1, expected.size() - 2);
        assertThat(expected).as("each uploaded object is whole").containsAllEntriesOf(uploaded);

        SluiceProcesses.Child again = compact(server, "compact-2.log");
        assertThat(again.awaitExit(3)).as(again.output()).isZero();
        assertThat(files(onDisk)).isEqualTo(expected);
        assertThat(
                        WarehouseManifest.read(
                                        LakeFiles.resolve(
                                                config.rootUri(), "warehouse/purchases/" + hour))
                                .orElseThrow()
                                .rows())
                .isEqualTo(landed.get(hour));
    }

    private SluiceProcesses.Child compact(LocalS3 server, String log) throws IOException {
        return processes.start(
                dir.resolve(log),
                server.env(),
                "compact",
                "--config",
                dir.resolve("s3-run/sluice.yaml").toString());
    }

    private static List<Path> parquetObjects(Path hourDir) {
        if (!Files.isDirectory(hourDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(hourDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".parquet")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The hour's visible objects (S3Proxy's hidden upload parts left out) with their SHA-256. */
    private static Map<String, String> files(Path hourDir) throws Exception {
        Map<String, String> result = new TreeMap<>();
        if (!Files.isDirectory(hourDir)) {
            return result;
        }
        try (Stream<Path> files = Files.list(hourDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (!name.startsWith(".")) {
                    result.put(
                            name,
                            HexFormat.of()
                                    .formatHex(
                                            MessageDigest.getInstance("SHA-256")
                                                    .digest(Files.readAllBytes(f))));
                }
            }
        }
        return result;
    }
}
