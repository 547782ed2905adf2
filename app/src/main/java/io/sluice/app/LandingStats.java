package io.sluice.app;

import io.sluice.lake.HourPartitioner;
import io.sluice.lake.LakeFiles;
import io.sluice.lake.LandingScan;
import java.io.IOException;
import java.net.URI;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.fs.Path;

/**
 * What a table's landing zone holds, read back from its committed Avro files: rows, rows outside
 * their partition's hour (must be none) and complete hours.
 */
record LandingStats(long rows, long misplacedRows, long hours, long completeHours) {

    static LandingStats scan(URI tableDir, String eventTimeField) throws IOException {
        long rows = 0;
        long misplaced = 0;
        long hours = 0;
        long complete = 0;
        for (LandingScan.Hour hour : LandingScan.scan(new Path(tableDir))) {
            hours++;
            if (hour.manifested() != null) {
                complete++;
            }
            long start = hour.hourStart();
            URI dir = LakeFiles.resolve(tableDir, hour.partition());
            for (String file : hour.committed()) {
                try (DataFileStream<GenericRecord> reader =
                        new DataFileStream<>(
                                LakeFiles.open(LakeFiles.resolve(dir, file)),
                                new GenericDatumReader<>())) {
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
}
