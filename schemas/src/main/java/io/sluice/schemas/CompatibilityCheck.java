package io.sluice.schemas;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;

/**
 * The build's schema-evolution gate. Lake files and producers outlive a deploy, so every current
 * schema must be able to read data written with every released version of the same record (backward
 * compatibility, as Avro schema resolution defines it). Bound to the {@code process-classes} phase,
 * it fails the build on the first incompatible change.
 */
public final class CompatibilityCheck {

    private CompatibilityCheck() {}

    /**
     * Runs the gate.
     *
     * @param args the directory of current {@code .avsc} files, then the directory holding one
     *     sub-directory of standalone {@code .avsc} files per released version
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "usage: CompatibilityCheck <current-schema-dir> <released-schema-dir>");
        }
        List<String> problems = check(Path.of(args[0]), Path.of(args[1]));
        if (!problems.isEmpty()) {
            throw new IllegalStateException(
                    "Schema change breaks backward compatibility:\n  "
                            + String.join("\n  ", problems));
        }
        System.out.println("[sluice] schemas are backward compatible with every released version");
    }

    /** Every incompatibility between the current schemas and the released ones, as messages. */
    public static List<String> check(Path currentDir, Path releasedDir) throws IOException {
        Map<String, Schema> current = parseCurrent(currentDir);
        List<String> problems = new ArrayList<>();
        for (Path versionDir : sorted(releasedDir, Files::isDirectory)) {
            for (Path file : sorted(versionDir, p -> p.toString().endsWith(".avsc"))) {
                Schema released = new Schema.Parser().parse(file.toFile());
                String where = versionDir.getFileName() + "/" + file.getFileName();
                Schema reader = current.get(released.getFullName());
                if (reader == null) {
                    problems.add(where + ": record " + released.getFullName() + " was removed");
                    continue;
                }
                SchemaPairCompatibility result =
                        SchemaCompatibility.checkReaderWriterCompatibility(reader, released);
                if (result.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
                    result.getResult()
                            .getIncompatibilities()
                            .forEach(
                                    i ->
                                            problems.add(
                                                    where
                                                            + ": "
                                                            + i.getType()
                                                            + " at "
                                                            + i.getLocation()
                                                            + fieldName(reader, i.getLocation())
                                                            + ": "
                                                            + i.getMessage()));
                }
            }
        }
        return problems;
    }

    /** Names the top-level field a JSON-pointer location such as {@code /fields/6/type} is in. */
    static String fieldName(Schema record, String location) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("^/fields/(\\d+)").matcher(location);
        if (!m.find()) {
            return "";
        }
        int index = Integer.parseInt(m.group(1));
        return index < record.getFields().size()
                ? " (field '" + record.getFields().get(index).name() + "')"
                : "";
    }

    /**
     * Parses all current files with one parser, so records may refer to named types (such as enums)
     * defined in other files. Files that fail to resolve yet are retried after the rest.
     */
    static Map<String, Schema> parseCurrent(Path dir) throws IOException {
        List<Path> pending = new ArrayList<>(sorted(dir, p -> p.toString().endsWith(".avsc")));
        Schema.Parser parser = new Schema.Parser();
        Map<String, Schema> byName = new LinkedHashMap<>();
        while (!pending.isEmpty()) {
            int before = pending.size();
            for (var it = pending.iterator(); it.hasNext(); ) {
                File file = it.next().toFile();
                try {
                    Schema schema = parser.parse(file);
                    byName.put(schema.getFullName(), schema);
                    it.remove();
                } catch (org.apache.avro.AvroRuntimeException e) {
                    // Avro says "Undefined schema" or "undefined name" depending on the path.
                    if (!e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("undefined")) {
                        throw new IOException("Cannot parse " + file + ": " + e.getMessage(), e);
                    }
                }
            }
            if (pending.size() == before) {
                throw new IOException("Unresolvable schema references in " + pending);
            }
        }
        return byName;
    }

    private static List<Path> sorted(Path dir, java.util.function.Predicate<Path> filter)
            throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(filter).sorted(Comparator.naturalOrder()).toList();
        }
    }
}
