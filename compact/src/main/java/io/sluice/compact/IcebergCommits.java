package io.sluice.compact;

import io.sluice.catalog.IcebergHours;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.WarehouseHours;
import io.sluice.lake.WarehouseManifest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.Metrics;

/**
 * The Iceberg side of a table's compaction: each hour {@link HourCompactor} publishes is committed
 * to the table's Iceberg table as one overwrite of its partition, and an hour published but not
 * committed (a crash between the two) is found and committed by the next run.
 */
final class IcebergCommits {

    private final IcebergHours iceberg;
    private final WarehouseHours hours;
    private final URI warehouseTable;

    IcebergCommits(IcebergHours iceberg, WarehouseHours hours, URI warehouseTable) {
        this.iceberg = iceberg;
        this.hours = hours;
        this.warehouseTable = warehouseTable;
    }

    /**
     * {@code pending}, plus every published hour in range whose files the Iceberg table does not
     * hold exactly: compacting one finds it up to date and commits it.
     */
    List<String> withUncommitted(
            List<String> pending, Optional<Long> fromHour, Optional<Long> toHour)
            throws IOException {
        Set<String> listed = new HashSet<>(pending);
        Map<String, Set<String>> committed = iceberg.filesByPartition();
        List<String> behind = new ArrayList<>(pending);
        for (WarehouseManifest m : WarehouseManifest.readAll(warehouseTable)) {
            long start = HourPartitioner.parse(m.partition());
            if (listed.contains(m.partition())
                    || fromHour.isPresent() && start < fromHour.get()
                    || toHour.isPresent() && start >= toHour.get()) {
                continue;
            }
            if (!locations(m).equals(committed.getOrDefault(m.partition(), Set.of()))) {
                behind.add(m.partition());
            }
        }
        behind.sort(Comparator.naturalOrder());
        return behind;
    }

    /** A new hour being published: its bucket files' metrics, then its commit. */
    Hour hour() {
        return new Hour();
    }

    /** One hour being published. */
    final class Hour {
        private final Map<String, Metrics> metrics = new ConcurrentHashMap<>();

        /** Reads the metrics of a bucket file just written, before an upload removes it. */
        void written(Path local) {
            metrics.put(local.getFileName().toString(), iceberg.metrics(local));
        }

        /** Commits the hour once published, with the metrics of its files. */
        void commit(WarehouseManifest published) {
            List<IcebergHours.HourFile> files = new ArrayList<>();
            for (WarehouseManifest.BucketFile f : published.files()) {
                files.add(
                        new IcebergHours.HourFile(
                                location(published.partition(), f.name()),
                                f.bytes(),
                                metrics.get(f.name())));
            }
            iceberg.commit(published.partition(), published.sourceManifestSha256(), files);
        }
    }

    /**
     * Commits an hour published earlier unless its partition holds exactly the hour's files; their
     * metrics are read from the published files only then.
     */
    void commitPublished(WarehouseManifest published) {
        String partition = published.partition();
        if (iceberg.filesOf(partition).keySet().equals(locations(published))) {
            return;
        }
        List<IcebergHours.HourFile> files = new ArrayList<>();
        for (WarehouseManifest.BucketFile f : published.files()) {
            files.add(iceberg.published(location(partition, f.name()), f.bytes()));
        }
        iceberg.commit(partition, published.sourceManifestSha256(), files);
    }

    private Set<String> locations(WarehouseManifest m) {
        Set<String> wanted = new HashSet<>();
        m.files().forEach(f -> wanted.add(location(m.partition(), f.name())));
        return wanted;
    }

    /** The full location of a published file of the hour, as the Iceberg table records it. */
    private String location(String partition, String name) {
        return LakeFiles.resolve(hours.warehouseHour(partition), name).toString();
    }
}
