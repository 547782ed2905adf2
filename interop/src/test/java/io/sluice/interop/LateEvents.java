package io.sluice.interop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Late events in a complete landing hour, as the landing sink commits them after the hour was
 * compacted: one more Avro file in the hour (copies of its first events under new ids), and the
 * hour's {@code _SUCCESS} written again to list it, which makes the warehouse hour stale. Written
 * here with Avro and Jackson (Spark's), from the hour's own files: this module has no Sluice code
 * on its class path.
 */
final class LateEvents {

    private LateEvents() {}

    /** Lands {@code count} late events in {@code hourDir}; returns their ids. */
    static List<String> land(Path hourDir, int count, String idField) throws IOException {
        Path first;
        try (Stream<Path> files = Files.list(hourDir)) {
            first =
                    files.filter(f -> f.getFileName().toString().endsWith(".avro"))
                            .sorted()
                            .findFirst()
                            .orElseThrow(() -> new IllegalStateException("no Avro in " + hourDir));
        }
        Path late = hourDir.resolve("part-late-0.avro");
        List<String> ids = new ArrayList<>();
        try (DataFileReader<GenericRecord> in =
                        new DataFileReader<>(first.toFile(), new GenericDatumReader<>());
                DataFileWriter<GenericRecord> out =
                        new DataFileWriter<>(
                                new GenericDatumWriter<GenericRecord>(in.getSchema()))) {
            String codec = in.getMetaString("avro.codec");
            out.setCodec(CodecFactory.fromString(codec == null ? "null" : codec));
            out.create(in.getSchema(), late.toFile());
            while (in.hasNext() && ids.size() < count) {
                GenericRecord r = in.next();
                String id = "late-" + ids.size() + "-" + r.get(idField);
                r.put(idField, id);
                out.append(r);
                ids.add(id);
            }
        }
        ObjectMapper json = new ObjectMapper();
        Path manifestFile = hourDir.resolve("_SUCCESS");
        ObjectNode manifest = (ObjectNode) json.readTree(manifestFile.toFile());
        ArrayNode files = (ArrayNode) manifest.get("files");
        files.addObject()
                .put("name", late.getFileName().toString())
                .put("rows", ids.size())
                .put("bytes", Files.size(late));
        manifest.put("rows", manifest.get("rows").asLong() + ids.size());
        json.writerWithDefaultPrettyPrinter().writeValue(manifestFile.toFile(), manifest);
        return ids;
    }
}
