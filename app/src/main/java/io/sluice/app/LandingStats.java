package io.sluice.app;

import io.sluice.lake.HourManifest;
import io.sluice.lake.HourPartitioner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

/**
 * What a table's landing zone holds, read back from its committed Avro files: rows, rows outside
 * their partition's hour (must be none) and complete hours.
 */
record LandingStats(long rows, long misplacedRows, long hours, long completeHours) {

    static LandingStats scan(Path tableDir, String eventTimeField) throws IOException {
        long rows = 0;
        long misplaced = 0;
        long hours = 0;
        long complete = 0;
        if (!Files.isDirectory(tableDir)) {
            return new LandingStats(0, 0, 0, 0);
        }
        for (Path hourDir : hourDirs(tableDir)) {
            hours++;
            if (Files.exists(hourDir.resolve(HourManifest.NAME))) {
                complete++;
            }
            String partition = tableDir.relativize(hourDir).toString();
            long start = HourPartitioner.parse(partition);
            for (Path file : dataFiles(hourDir)) {
                try (DataFileReader<GenericRecord> reader =
                        new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
                    for (GenericRecord r : reader) {
                        rows++;
                        long t = (Long) r.get(eventTimeField);
                        if (t < start || t >= start + HourPartitioner.hourMillis()) {
                            misplaced++;
                        }
                    }
                }
            }
        }
        return new LandingStats(rows, misplaced, hours, complete);
    }

    private static List<Path> hourDirs(Path tableDir) throws IOException {
        try (Stream<Path> dirs =
                Files.find(
                        tableDir,
                        2,
                        (p, a) ->
                                a.isDirectory() && p.getFileName().toString().startsWith("hr="))) {
            return dirs.sorted().toList();
        }
    }

    private static List<Path> dataFiles(Path hourDir) throws IOException {
        try (Stream<Path> files = Files.list(hourDir)) {
            return files.filter(p -> HourManifest.isCommittedDataFile(p.getFileName().toString()))
                    .sorted()
                    .toList();
        }
    }
}
