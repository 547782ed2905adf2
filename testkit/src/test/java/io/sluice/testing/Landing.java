package io.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

/** Reads a table's landing zone back with Avro's own reader, as any consumer of the lake would. */
public final class Landing {

    /** A landed row and the partition directory it was found in. */
    public record Row(String partition, GenericRecord record) {}

    private Landing() {}

    /**
     * Every row of every committed {@code .avro} file (in-progress and hidden files are skipped).
     * The landing zone may be live: a walk that meets an in-progress file just renamed or removed
     * by a running job walks again.
     */
    public static List<Row> rows(Path tableDir) {
        for (int attempt = 1; ; attempt++) {
            try {
                return walk(tableDir);
            } catch (UncheckedIOException e) {
                if (!(e.getCause() instanceof NoSuchFileException) || attempt == 10) {
                    throw e;
                }
            }
        }
    }

    private static List<Row> walk(Path tableDir) {
        List<Row> rows = new ArrayList<>();
        if (!Files.isDirectory(tableDir)) {
            return rows;
        }
        try (Stream<Path> files = Files.walk(tableDir)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = file.getFileName().toString();
                // S3Proxy's files for objects still being written end in "-<uuid>", not ".avro".
                if (name.startsWith(".") || name.startsWith("_") || !name.endsWith(".avro")) {
                    continue;
                }
                String partition = tableDir.relativize(file.getParent()).toString();
                try (DataFileReader<GenericRecord> reader =
                        new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
                    reader.forEach(r -> rows.add(new Row(partition, r)));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + tableDir, e);
        }
        return rows;
    }

    /** How many records one Avro data file holds. */
    public static long records(Path avroFile) throws IOException {
        long n = 0;
        try (DataFileReader<GenericRecord> reader =
                new DataFileReader<>(avroFile.toFile(), new GenericDatumReader<>())) {
            for (GenericRecord ignored : reader) {
                n++;
            }
        }
        return n;
    }
}
