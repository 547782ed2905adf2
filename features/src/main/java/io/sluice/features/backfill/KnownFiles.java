package io.sluice.features.backfill;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.enumerate.FileEnumerator;
import org.apache.flink.core.fs.Path;

/**
 * A file source's splits for files whose lengths are known already (from the table's snapshot), one
 * whole file per split, without asking the file system. Flink's own enumerators ask for each path's
 * status, which on an object store is a HEAD request per file, and a batch job enumerates twice
 * (once to infer the source's parallelism, once to run).
 */
final class KnownFiles implements FileEnumerator.Provider {

    private static final long serialVersionUID = 1L;

    /** Each file's length in bytes, by its path's string form. */
    private final Map<String, Long> lengths;

    KnownFiles(Map<String, Long> lengths) {
        this.lengths = Map.copyOf(lengths);
    }

    @Override
    public FileEnumerator create() {
        return (paths, minDesiredSplits) -> splits(paths);
    }

    private Collection<FileSourceSplit> splits(Path[] paths) throws IOException {
        List<FileSourceSplit> splits = new ArrayList<>(paths.length);
        for (Path path : paths) {
            Long length = lengths.get(path.toString());
            if (length == null) {
                throw new IOException("no known length for " + path + " among the planned files");
            }
            // The modification time is not known, and a bounded source does not read it.
            splits.add(
                    new FileSourceSplit(String.valueOf(splits.size()), path, 0, length, 0, length));
        }
        return splits;
    }
}
