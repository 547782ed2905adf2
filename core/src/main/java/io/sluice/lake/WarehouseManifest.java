package io.sluice.lake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The {@code _SUCCESS} manifest of a compacted warehouse hour. It names the landing manifest it was
 * built from (by digest), so a re-published landing hour is recognised as stale, and lists each
 * Parquet file with its bucket, rows and key range.
 *
 * <p>It holds no wall-clock time: compacting the same input twice writes the same bytes.
 */
public record WarehouseManifest(
        String table,
        String partition,
        String sourceManifestSha256,
        long sourceRows,
        long rows,
        long duplicatesRemoved,
        int buckets,
        List<BucketFile> files,
        Schema schema) {

    public static final String NAME = "_SUCCESS";

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** One Parquet file: the rows of one bucket, sorted, with their smallest and largest key. */
    public record BucketFile(
            String name, int bucket, long rows, long bytes, Object minKey, Object maxKey) {}

    /** Serialises the manifest. */
    public byte[] toJson() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("table", table);
        root.put("partition", partition);
        ObjectNode source = root.putObject("source");
        source.put("manifest_sha256", sourceManifestSha256);
        source.put("rows", sourceRows);
        root.put("rows", rows);
        root.put("duplicates_removed", duplicatesRemoved);
        root.put("buckets", buckets);
        ArrayNode list = root.putArray("files");
        for (BucketFile f : files) {
            ObjectNode node = list.addObject();
            node.put("name", f.name());
            node.put("bucket", f.bucket());
            node.put("rows", f.rows());
            node.put("bytes", f.bytes());
            node.set("min_key", JSON.valueToTree(f.minKey()));
            node.set("max_key", JSON.valueToTree(f.maxKey()));
        }
        ObjectNode schemaNode = root.putObject("schema");
        schemaNode.put("name", schema.getFullName());
        schemaNode.put(
                "fingerprint", Long.toHexString(SchemaNormalization.parsingFingerprint64(schema)));
        schemaNode.set("avsc", JSON.readTree(schema.toString()));
        return JSON.writeValueAsBytes(root);
    }

    /** Every manifest of a warehouse table directory ({@code dt=/hr=} hours), by partition. */
    public static List<WarehouseManifest> readAll(Path tableDir) throws IOException {
        return readAll(tableDir.toUri());
    }

    /**
     * Every manifest of a warehouse table directory ({@code dt=/hr=} hours), by partition, on any
     * file system the lake runs on.
     */
    public static List<WarehouseManifest> readAll(URI tableDir) throws IOException {
        List<WarehouseManifest> manifests = new ArrayList<>();
        for (LakeFiles.Entry day : LakeFiles.list(tableDir)) {
            if (!day.directory() || !day.name().startsWith("dt=")) {
                continue;
            }
            for (LakeFiles.Entry hour : LakeFiles.list(day.uri())) {
                if (hour.directory() && hour.name().startsWith("hr=")) {
                    read(hour.uri()).ifPresent(manifests::add);
                }
            }
        }
        return manifests;
    }

    /** Reads the manifest of a warehouse hour directory, if it has one. */
    public static Optional<WarehouseManifest> read(Path hourDir) throws IOException {
        return read(hourDir.toUri());
    }

    /** Reads the manifest of a warehouse hour directory, if it has one, on any lake file system. */
    public static Optional<WarehouseManifest> read(URI hourDir) throws IOException {
        byte[] bytes;
        try {
            bytes = LakeFiles.read(LakeFiles.resolve(hourDir, NAME));
        } catch (FileNotFoundException missing) {
            return Optional.empty();
        }
        return Optional.of(parse(bytes));
    }

    /**
     * A manifest from its bytes, for a reader that also needs them as they are (the training-set
     * builder addresses its artifacts by a digest of each hour's manifest bytes).
     */
    public static WarehouseManifest parse(byte[] bytes) throws IOException {
        JsonNode root = JSON.readTree(bytes);
        List<BucketFile> files = new ArrayList<>();
        for (JsonNode f : root.path("files")) {
            files.add(
                    new BucketFile(
                            f.path("name").asText(),
                            f.path("bucket").asInt(),
                            f.path("rows").asLong(),
                            f.path("bytes").asLong(),
                            JSON.treeToValue(f.path("min_key"), Object.class),
                            JSON.treeToValue(f.path("max_key"), Object.class)));
        }
        return new WarehouseManifest(
                root.path("table").asText(),
                root.path("partition").asText(),
                root.path("source").path("manifest_sha256").asText(),
                root.path("source").path("rows").asLong(),
                root.path("rows").asLong(),
                root.path("duplicates_removed").asLong(),
                root.path("buckets").asInt(),
                List.copyOf(files),
                new Schema.Parser().parse(root.path("schema").path("avsc").toString()));
    }
}
