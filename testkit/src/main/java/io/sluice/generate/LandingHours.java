package io.sluice.generate;

import io.sluice.config.TableConfig;
import io.sluice.event.Event;
import io.sluice.event.EventParser;
import io.sluice.event.EventStreams;
import io.sluice.event.InvalidEventException;
import io.sluice.lake.AvroPayloadWriter;
import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;

/**
 * Writes generated events of one table straight into complete landing hours, in the landing sink's
 * file format and with its manifests, without Kafka or Flink. Benchmarks and tests of what reads
 * the landing zone use it to build large hours quickly; the ingest tests cover the real path.
 */
public final class LandingHours {

    private LandingHours() {}

    /**
     * Writes the generator's valid events for {@code table} (and its re-sent duplicates when {@code
     * keepDuplicates}, as a landing zone holds them after de-duplication state expired) into {@code
     * root/raw/<table>/dt=/hr=/}, {@code filesPerHour} files per hour, and publishes each hour's
     * {@code _SUCCESS}.
     *
     * @return rows written per partition
     */
    public static Map<String, Long> write(
            Path root,
            TableConfig table,
            GeneratorOptions options,
            int filesPerHour,
            boolean keepDuplicates)
            throws IOException {
        // Streamed from the generator: a benchmark's hours need not hold every record twice.
        return write(
                root,
                table,
                sink -> new Generator(List.of(table), options).run(sink),
                filesPerHour,
                keepDuplicates);
    }

    /**
     * Like {@link #write(Path, TableConfig, GeneratorOptions, int, boolean)}, from records already
     * generated (for any tables; those of other tables are skipped): a test that also sends the
     * same records to Kafka lands exactly the events it sent.
     *
     * @return rows written per partition
     */
    public static Map<String, Long> write(
            Path root,
            TableConfig table,
            List<GeneratedRecord> records,
            int filesPerHour,
            boolean keepDuplicates)
            throws IOException {
        return write(root, table, records::forEach, filesPerHour, keepDuplicates);
    }

    private static Map<String, Long> write(
            Path root,
            TableConfig table,
            Consumer<Consumer<GeneratedRecord>> records,
            int filesPerHour,
            boolean keepDuplicates)
            throws IOException {
        EventParser parser =
                new EventParser(EventStreams.parseSpec(table), System::currentTimeMillis);
        Map<String, List<Event>> hours = new TreeMap<>();
        List<InvalidEventException> failures = new ArrayList<>();
        records.accept(
                record -> {
                    boolean wanted =
                            record.table().equals(table.name())
                                    && (record.kind() == GeneratedRecord.Kind.VALID
                                            || keepDuplicates
                                                    && record.kind()
                                                            == GeneratedRecord.Kind.DUPLICATE);
                    if (!wanted) {
                        return;
                    }
                    try {
                        Event event = parser.toEvent(record.value());
                        hours.computeIfAbsent(
                                        HourPartitioner.partition(event.eventTime),
                                        p -> new ArrayList<>())
                                .add(event);
                    } catch (InvalidEventException e) {
                        failures.add(e);
                    }
                });
        if (!failures.isEmpty()) {
            throw new IllegalStateException(
                    "generated valid events failed to parse", failures.get(0));
        }
        Path tableDir = root.resolve("raw").resolve(table.name());
        Map<String, Long> rows = new TreeMap<>();
        AvroPayloadWriter.Factory factory = new AvroPayloadWriter.Factory(table.schema(), "snappy");
        for (Map.Entry<String, List<Event>> hour : hours.entrySet()) {
            Path dir = tableDir.resolve(hour.getKey());
            Files.createDirectories(dir);
            List<Event> events = hour.getValue();
            int files = Math.max(1, Math.min(filesPerHour, events.size()));
            for (int f = 0; f < files; f++) {
                org.apache.flink.core.fs.Path path =
                        new org.apache.flink.core.fs.Path(
                                dir.resolve(String.format("part-%d.avro", f)).toUri());
                try (FSDataOutputStream out =
                        path.getFileSystem().create(path, FileSystem.WriteMode.NO_OVERWRITE)) {
                    BulkWriter<Event> writer = factory.create(out);
                    for (int i = f; i < events.size(); i += files) {
                        writer.addElement(events.get(i));
                    }
                    writer.finish();
                }
            }
            long hourStart = HourPartitioner.parse(hour.getKey());
            rows.put(
                    hour.getKey(),
                    HourManifest.write(
                            new org.apache.flink.core.fs.Path(dir.toUri()),
                            table.name(),
                            table.schema(),
                            hourStart,
                            hourStart
                                    + HourPartitioner.hourMillis()
                                    + table.allowedLateness().toMillis(),
                            table.allowedLateness(),
                            0));
        }
        return rows;
    }
}
