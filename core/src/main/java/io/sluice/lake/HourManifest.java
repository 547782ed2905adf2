package io.sluice.lake;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The {@code _SUCCESS} manifest of a complete landing hour: which committed files it holds, their
 * row counts, the watermark that completed it and the schema. Compaction reads exactly the files it
 * lists, so a reader never mixes a half-committed hour into the warehouse.
 */
public final class HourManifest {

    public static final String NAME = "_SUCCESS";

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private HourManifest() {}

    /** One committed data file of an hour. */
    public record DataFile(String name, long rows, long bytes) {}

    /**
     * Whether a file in an hour directory is committed data: the file sink's in-progress and
     * staging files are hidden ({@code .}) and manifests start with {@code _}.
     */
    public static boolean isCommittedDataFile(String name) {
        return !name.startsWith(".") && !name.startsWith("_");
    }

    /** The committed data files of an hour directory, by name; in-progress files are hidden. */
    public static List<DataFile> committedFiles(Path hourDir) throws IOException {
        FileSystem fs = hourDir.getFileSystem();
        List<DataFile> files = new ArrayList<>();
        FileStatus[] statuses = LakeFiles.listStatus(fs, hourDir);
        if (statuses == null) {
            return files;
        }
        for (FileStatus status : statuses) {
            String name = status.getPath().getName();
            if (status.isDir() || !isCommittedDataFile(name)) {
                continue;
            }
            files.add(new DataFile(name, countRows(fs, status.getPath()), status.getLen()));
        }
        files.sort(Comparator.comparing(DataFile::name));
        return files;
    }

    /** Counts an Avro container file's rows from its block headers, without decoding records. */
    static long countRows(FileSystem fs, Path file) throws IOException {
        long rows = 0;
        try (InputStream in = fs.open(file);
                DataFileStream<GenericRecord> stream =
                        new DataFileStream<>(in, new GenericDatumReader<>())) {
            while (stream.hasNext()) {
                rows += stream.getBlockCount();
                stream.nextBlock();
            }
        }
        return rows;
    }

    /**
     * Writes the manifest of {@code hourDir}, replacing any earlier one in a single step, and
     * returns the number of rows it records.
     */
    public static long write(
            Path hourDir,
            String table,
            Schema schema,
            long hourStart,
            long watermark,
            Duration allowedLateness,
            long checkpointId)
            throws IOException {
        List<DataFile> files = committedFiles(hourDir);
        long rows = files.stream().mapToLong(DataFile::rows).sum();
        ObjectNode root = JSON.createObjectNode();
        root.put("table", table);
        root.put("partition", HourPartitioner.partition(hourStart));
        root.put("hour_start", Instant.ofEpochMilli(hourStart).toString());
        root.put(
                "hour_end",
                Instant.ofEpochMilli(hourStart + HourPartitioner.hourMillis()).toString());
        root.put("allowed_lateness", allowedLateness.toString());
        root.put(
                "watermark",
                watermark == Long.MAX_VALUE
                        ? "end-of-input"
                        : Instant.ofEpochMilli(watermark).toString());
        root.put("checkpoint_id", checkpointId);
        root.put("committed_at", Instant.now().toString());
        root.put("rows", rows);
        ArrayNode list = root.putArray("files");
        for (DataFile f : files) {
            list.addObject().put("name", f.name()).put("rows", f.rows()).put("bytes", f.bytes());
        }
        ObjectNode schemaNode = root.putObject("schema");
        schemaNode.put("name", schema.getFullName());
        schemaNode.put(
                "fingerprint", Long.toHexString(SchemaNormalization.parsingFingerprint64(schema)));
        schemaNode.set("avsc", JSON.readTree(schema.toString()));
        publish(hourDir, JSON.writeValueAsBytes(root));
        return rows;
    }

    /** Reads a manifest back as a JSON tree. */
    public static ObjectNode read(Path hourDir) throws IOException {
        Path path = new Path(hourDir, NAME);
        try (InputStream in = path.getFileSystem().open(path)) {
            return (ObjectNode) JSON.readTree(in);
        }
    }

    /** One step for readers: the old manifest or the new one ({@link LakeFiles#write}). */
    private static void publish(Path dir, byte[] bytes) throws IOException {
        LakeFiles.write(new Path(dir, NAME).toUri(), bytes);
    }
}
