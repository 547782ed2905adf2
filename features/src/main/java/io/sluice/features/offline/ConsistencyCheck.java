package io.sluice.features.offline;

import io.sluice.catalog.LakeCatalog;
import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EntityTiles;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.FeatureRefs;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.WrittenThrough;
import io.sluice.lake.HiveBucketing;
import io.sluice.lake.HourPartitioner;
import io.sluice.lake.WarehouseHours;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;

/**
 * The online/offline consistency check: for sampled entities and times within retention, the online
 * store's values at {@code t} against the same features computed offline, by the same library, from
 * the warehouse's events. Reports Chronon's consistency metrics per feature ({@link
 * ConsistencyReport}).
 */
public final class ConsistencyCheck {

    private final SluiceConfig config;
    private final OnlineStore store;
    private final LongSupplier clock;

    public ConsistencyCheck(SluiceConfig config, OnlineStore store, LongSupplier clock) {
        this.config = config;
        this.store = store;
        this.clock = clock;
    }

    /** Checks {@code samples} (entity, time) pairs per view; reports per {@code view:feature}. */
    public List<ConsistencyReport> run(int samples, long seed) throws IOException {
        return run(samples, seed, n -> {});
    }

    /**
     * {@link #run(int, long)}, calling {@code sampled} with the samples done so far (of {@code
     * samples} times the views) after each.
     */
    public List<ConsistencyReport> run(int samples, long seed, LongConsumer sampled)
            throws IOException {
        long done = 0;
        SplittableRandom random = new SplittableRandom(seed);
        long now = clock.getAsLong();
        Map<String, ConsistencyReport> reports = new LinkedHashMap<>();
        try (LakeCatalog catalog = config.catalog().isEnabled() ? LakeCatalog.open(config) : null) {
            for (FeatureViewConfig viewConfig : config.featureViews()) {
                TableConfig table = config.table(viewConfig.source()).orElseThrow();
                ViewDef view = ViewDef.of(viewConfig, table);
                FeatureReader online = new FeatureReader(store, List.of(view), () -> now);
                List<FeatureReader.FeatureRef> refs = FeatureRefs.all(view);
                for (FeatureDef f : view.features()) {
                    reports.putIfAbsent(
                            view.name() + ":" + f.name(),
                            new ConsistencyReport(view.name() + ":" + f.name()));
                }
                // Only times before the warehouse's frontier: later, online values may rightly
                // count events that are not compacted (or not landed) yet.
                long until =
                        Math.min(now, new WarehouseHours(table, config.rootUri()).completeUntil());
                // Nor after what the features job has written the view through: the store may
                // still miss events there that the warehouse has.
                until = WrittenThrough.before(store.writtenThrough(view.name()), until);
                List<FeatureDef> read = new ArrayList<>(view.features());
                read.add(view.presence());
                // The hours the samples' windows can read, from one snapshot of the table; an hour
                // compacted but not committed to it ends what the warehouse holds whole.
                WarehouseSnapshot snapshot =
                        WarehouseSnapshot.read(
                                catalog,
                                config,
                                table,
                                Optional.empty(),
                                Windows.floor(
                                        Windows.start(
                                                read,
                                                now - view.ttlMillis() + 1,
                                                view.tileMillis()),
                                        HourPartitioner.hourMillis()),
                                until);
                if (!snapshot.uncommitted().isEmpty()) {
                    until = Math.min(until, snapshot.uncommitted().first());
                }
                List<Map.Entry<Long, List<WarehouseSnapshot.File>>> hours =
                        hoursWithin(snapshot, now - view.ttlMillis(), until);
                List<Sample> picked = new ArrayList<>();
                Map<WarehouseSnapshot.File, List<String>> keys = new HashMap<>();
                for (int i = 0; i < samples && !hours.isEmpty(); i++) {
                    Map.Entry<Long, List<WarehouseSnapshot.File>> hour =
                            hours.get(random.nextInt(hours.size()));
                    String entity = someEntity(hour.getValue(), table, random, keys);
                    if (entity == null) {
                        sampled.accept(++done);
                        continue;
                    }
                    long hourStart = hour.getKey();
                    long lo = Math.max(hourStart, now - view.ttlMillis() + 1);
                    long at =
                            lo
                                    + random.nextLong(
                                            Math.max(
                                                    1,
                                                    Math.min(
                                                                    until,
                                                                    hourStart
                                                                            + 2
                                                                                    * HourPartitioner
                                                                                            .hourMillis())
                                                            - lo));
                    picked.add(
                            new Sample(
                                    entity,
                                    Windows.start(read, at, view.tileMillis()),
                                    at,
                                    new EntityTiles(view.tileMillis(), view.coarseMillis())));
                }
                readOffline(table, view, snapshot, picked);
                for (Sample sample : picked) {
                    FeatureReader.Vector served =
                            online.read(refs, List.of(sample.entity), sample.at).get(0);
                    boolean known = WindowReads.present(view, sample.at, sample.offline);
                    for (int j = 0; j < view.features().size(); j++) {
                        FeatureDef f = view.features().get(j);
                        reports.get(view.name() + ":" + f.name())
                                .add(
                                        served.values().get(j),
                                        known
                                                ? sample.offline.value(f, sample.at)
                                                : WindowReads.notFound());
                    }
                    // Counted once compared: the files were read for all samples before.
                    sampled.accept(++done);
                }
            }
        }
        return new ArrayList<>(reports.values());
    }

    /**
     * A sampled entity and time, and its events in {@code [from, at)} as the warehouse has them.
     */
    private record Sample(String entity, long from, long at, EntityTiles offline) {}

    /**
     * Adds to each sample's tiles its entity's warehouse events in {@code [from, at)}: each bucket
     * file that samples need (their entity's bucket, in each hour their windows touch) is read
     * once, for all of those samples' entities. Samples of one bucket share its files: read sample
     * by sample, a file was opened once for each, which on an object store is a round trip each.
     */
    private static void readOffline(
            TableConfig table, ViewDef view, WarehouseSnapshot snapshot, List<Sample> samples)
            throws IOException {
        long hour = HourPartitioner.hourMillis();
        Map<WarehouseSnapshot.File, List<Sample>> byFile = new LinkedHashMap<>();
        for (Sample sample : samples) {
            int bucket = HiveBucketing.bucket(sample.entity, table.buckets());
            for (long h = Math.floorDiv(sample.from, hour) * hour; h < sample.at; h += hour) {
                for (WarehouseSnapshot.File f : snapshot.hours().getOrDefault(h, List.of())) {
                    if (f.bucket() == bucket) {
                        byFile.computeIfAbsent(f, x -> new ArrayList<>()).add(sample);
                    }
                }
            }
        }
        for (Map.Entry<WarehouseSnapshot.File, List<Sample>> file : byFile.entrySet()) {
            Set<String> entities = new HashSet<>();
            file.getValue().forEach(sample -> entities.add(sample.entity));
            WarehouseEvents.scan(
                    table,
                    file.getKey().parquetInput(),
                    view,
                    entities,
                    (entity, event) -> {
                        for (Sample sample : file.getValue()) {
                            if (sample.entity.equals(entity)
                                    && event.ts() >= sample.from
                                    && event.ts() < sample.at) {
                                sample.offline.add(event);
                            }
                        }
                    });
        }
    }

    /** The snapshot's hours that overlap {@code [from, to)}, with their files. */
    private static List<Map.Entry<Long, List<WarehouseSnapshot.File>>> hoursWithin(
            WarehouseSnapshot snapshot, long from, long to) {
        List<Map.Entry<Long, List<WarehouseSnapshot.File>>> hours = new ArrayList<>();
        for (Map.Entry<Long, List<WarehouseSnapshot.File>> h : snapshot.hours().entrySet()) {
            if (h.getKey() + HourPartitioner.hourMillis() > from && h.getKey() < to) {
                hours.add(h);
            }
        }
        return hours;
    }

    /**
     * A random key of a random bucket file of the hour; {@code read} keeps the keys of the files
     * read so far, since samples pick the same file again.
     */
    private static String someEntity(
            List<WarehouseSnapshot.File> files,
            TableConfig table,
            SplittableRandom random,
            Map<WarehouseSnapshot.File, List<String>> read)
            throws IOException {
        if (files.isEmpty()) {
            return null;
        }
        WarehouseSnapshot.File file = files.get(random.nextInt(files.size()));
        List<String> keys = read.get(file);
        if (keys == null) {
            keys = new ArrayList<>();
            try (ParquetReader<GenericRecord> reader =
                    AvroParquetReader.<GenericRecord>builder(
                                    file.parquetInput(), new PlainParquetConfiguration())
                            .withDataModel(GenericData.get())
                            .build()) {
                GenericRecord r;
                while ((r = reader.read()) != null) {
                    keys.add(String.valueOf(r.get(table.key())));
                }
            }
            read.put(file, keys);
        }
        return keys.isEmpty() ? null : keys.get(random.nextInt(keys.size()));
    }
}
