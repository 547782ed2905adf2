package io.sluice.config;

import io.sluice.schemas.Schemas;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.avro.Schema;

/**
 * The validated contents of {@code sluice.yaml}, which every Sluice job reads. Loading either
 * yields a fully checked configuration or throws one {@link ConfigException} naming every problem
 * with its key path and line, so jobs never start half-configured.
 *
 * @param kafka Kafka connection
 * @param storage lake location
 * @param online online feature store
 * @param checkpoint checkpointing settings (defaults when the section is absent)
 * @param compact the compact job's memory settings (defaults when the section is absent)
 * @param catalog the Iceberg catalog the warehouse tables are registered in ({@link
 *     CatalogConfig#NONE} for none)
 * @param tables the tables, in file order, at least one
 * @param featureViews the feature views, in file order, possibly none
 */
public record SluiceConfig(
        KafkaConfig kafka,
        StorageConfig storage,
        OnlineConfig online,
        CheckpointConfig checkpoint,
        CompactConfig compact,
        CatalogConfig catalog,
        List<TableConfig> tables,
        List<FeatureViewConfig> featureViews) {
    public SluiceConfig {
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(online, "online");
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(compact, "compact");
        tables = List.copyOf(tables);
        featureViews = List.copyOf(featureViews);
    }

    /** A configuration without a catalog. */
    public SluiceConfig(
            KafkaConfig kafka,
            StorageConfig storage,
            OnlineConfig online,
            CheckpointConfig checkpoint,
            CompactConfig compact,
            List<TableConfig> tables,
            List<FeatureViewConfig> featureViews) {
        this(kafka, storage, online, checkpoint, compact, CatalogConfig.NONE, tables, featureViews);
    }

    /** This configuration with {@code catalog} instead of its own. */
    public SluiceConfig withCatalog(CatalogConfig catalog) {
        return new SluiceConfig(
                kafka, storage, online, checkpoint, compact, catalog, tables, featureViews);
    }

    /** A configuration with the compact job's default settings and no catalog. */
    public SluiceConfig(
            KafkaConfig kafka,
            StorageConfig storage,
            OnlineConfig online,
            CheckpointConfig checkpoint,
            List<TableConfig> tables,
            List<FeatureViewConfig> featureViews) {
        this(kafka, storage, online, checkpoint, CompactConfig.DEFAULTS, tables, featureViews);
    }

    /**
     * Loads {@code file}, resolving schema names with the project's schema registry ({@link
     * Schemas}) and substituting from the process environment.
     */
    public static SluiceConfig load(Path file) {
        return load(file, name -> Schemas.current(name).orElse(null));
    }

    /** Loads {@code file}, substituting {@code ${VAR}} from the process environment. */
    public static SluiceConfig load(Path file, Function<String, Schema> schemaResolver) {
        return load(file, schemaResolver, System.getenv());
    }

    /** Loads {@code file}; relative locations in it resolve against the file's directory. */
    public static SluiceConfig load(
            Path file, Function<String, Schema> schemaResolver, Map<String, String> env) {
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(
                    List.of(file + ": cannot read (" + e.getClass().getSimpleName() + ")"));
        }
        return parse(yaml, file.toString(), file.toAbsolutePath().getParent(), schemaResolver, env);
    }

    /** Parses with the process environment; see the five-argument overload. */
    public static SluiceConfig parse(
            String yaml, String sourceName, Path baseDir, Function<String, Schema> schemaResolver) {
        return parse(yaml, sourceName, baseDir, schemaResolver, System.getenv());
    }

    /**
     * Parses and validates configuration text.
     *
     * @param sourceName prefix of every error message, normally the file name
     * @param baseDir directory that relative file locations resolve against
     * @param schemaResolver Avro record schema for a schema name, or null if unknown
     * @param env variables for {@code ${VAR}} and {@code ${VAR:-default}} substitution
     * @throws ConfigException listing every problem found
     */
    public static SluiceConfig parse(
            String yaml,
            String sourceName,
            Path baseDir,
            Function<String, Schema> schemaResolver,
            Map<String, String> env) {
        return ConfigParser.parse(yaml, sourceName, baseDir, schemaResolver, env);
    }

    /** Absolute lake root; shorthand for {@code storage().rootUri()}. */
    public URI rootUri() {
        return storage.rootUri();
    }

    /** {@code <root>/<zone>/<table>}; shorthand for {@code storage().tablePath(zone, table)}. */
    public URI tablePath(String zone, String table) {
        return storage.tablePath(zone, table);
    }

    public Optional<TableConfig> table(String name) {
        return tables.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public Optional<FeatureViewConfig> featureView(String name) {
        return featureViews.stream().filter(v -> v.name().equals(name)).findFirst();
    }
}
