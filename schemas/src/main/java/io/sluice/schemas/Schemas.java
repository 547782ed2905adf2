package io.sluice.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The registry of event schemas: the current version of each record, which every job reads and
 * writes, and the released versions that producers and older landing files may still carry.
 *
 * <p>Tables in {@code sluice.yaml} name a schema by its simple record name (for example {@code
 * Purchase}); this class is the one place such names are resolved.
 */
public final class Schemas {

    /** Released versions, oldest first. Each holds one standalone {@code .avsc} per record. */
    static final List<String> RELEASED_VERSIONS = List.of("v1");

    private static final Map<String, Schema> CURRENT = new TreeMap<>();

    static {
        for (Schema schema :
                List.of(
                        PageView.getClassSchema(),
                        AddToCart.getClassSchema(),
                        Purchase.getClassSchema())) {
            CURRENT.put(schema.getName(), schema);
        }
    }

    private Schemas() {}

    /** The current schema of a record, or empty when no record has that simple name. */
    public static Optional<Schema> current(String name) {
        return Optional.ofNullable(CURRENT.get(name));
    }

    /** Simple names of all known records, sorted. */
    public static List<String> names() {
        return List.copyOf(CURRENT.keySet());
    }

    /**
     * Every schema a writer may have used for a record: the current one first, then the released
     * versions that differ from it (a version that did not change the record is the same schema).
     */
    public static List<Schema> writerSchemas(String name) {
        Schema current = current(name).orElseThrow(() -> unknown(name));
        List<Schema> schemas = new ArrayList<>();
        List<Long> fingerprints = new ArrayList<>();
        addDistinct(current, schemas, fingerprints);
        for (String version : RELEASED_VERSIONS) {
            released(version, name).ifPresent(s -> addDistinct(s, schemas, fingerprints));
        }
        return schemas;
    }

    /** A record as it was in a released version, if that version had it. */
    public static Optional<Schema> released(String version, String name) {
        String resource = "released/" + version + "/" + name + ".avsc";
        try (InputStream in = Schemas.class.getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(new Schema.Parser().parse(in));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read schema resource " + resource, e);
        }
    }

    private static void addDistinct(Schema schema, List<Schema> schemas, List<Long> fingerprints) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        if (!fingerprints.contains(fingerprint)) {
            fingerprints.add(fingerprint);
            schemas.add(schema);
        }
    }

    private static IllegalArgumentException unknown(String name) {
        return new IllegalArgumentException(
                "Unknown schema '" + name + "'; known schemas: " + String.join(", ", names()));
    }
}
