package io.sluice.features.training;

import io.sluice.features.agg.Status;
import io.sluice.lake.LakeFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a training-set build did ({@link TrainingSetBuilder#build}).
 *
 * @param digest the artifact's address
 * @param data the artifact's directory (on an object store, prefix) of Parquet part files, ranges
 *     of the spine's rows in its order ({@link #glob})
 * @param parts the part files, in spine order
 * @param reused whether an existing artifact answered the request
 * @param rows rows in the training set
 * @param partitions warehouse hours read, as {@code table/dt=…/hr=…} (when reused: those the
 *     spine's time range could read)
 * @param filesRead bucket files read (0 when reused)
 * @param statuses per {@code view:feature}, how many values had each status (empty when reused)
 * @param snapshots per table read, the Iceberg snapshot its files came from (empty without a
 *     catalog)
 */
public record TrainingSetResult(
        String digest,
        URI data,
        List<URI> parts,
        boolean reused,
        long rows,
        List<String> partitions,
        List<URI> filesRead,
        Map<String, Map<Status, Long>> statuses,
        Map<String, Long> snapshots) {

    /**
     * A glob of the part files, for readers such as DuckDB ({@code read_parquet(glob)}): a local
     * path on a {@code file:} lake, else a URI.
     */
    public String glob() {
        return "file".equals(data.getScheme())
                ? Path.of(data).resolve("*.parquet").toString()
                : data.toString().replaceAll("/$", "") + "/*.parquet";
    }

    /**
     * Writes this result, read from the lake, to the local {@code out}: a directory (an existing
     * one, or a path ending in {@code /}) gets its part files, replacing the parts already there; a
     * file gets them all as one Parquet file, replacing it atomically.
     */
    public void export(Path out, boolean directory) throws IOException {
        if (directory) {
            Files.createDirectories(out);
            try (var old = Files.list(out)) {
                for (Path p :
                        old.filter(f -> f.getFileName().toString().startsWith("part-")).toList()) {
                    Files.delete(p);
                }
            }
            for (URI part : parts) {
                try (InputStream in = LakeFiles.open(part)) {
                    Files.copy(in, out.resolve(ArtifactStore.name(part)));
                }
            }
            return;
        }
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve("." + out.getFileName() + ".tmp-" + UUID.randomUUID());
        try {
            TrainingSetWriter.concat(parts, tmp);
            Files.move(
                    tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
