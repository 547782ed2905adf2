package io.sluice.catalog;

import io.sluice.config.CatalogConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;

/**
 * The lake's Iceberg catalog, opened from the {@code catalog} section: one Iceberg table per
 * warehouse table, named {@code <namespace>.<table>}, with its metadata under {@code
 * <storage.root>/warehouse/_iceberg/<table>} (a leading underscore, which Hive-style globs and
 * partition discovery skip) and its data files the warehouse's own.
 */
public final class LakeCatalog implements Closeable {

    /** The directory of the Iceberg tables' metadata in the warehouse zone. */
    public static final String METADATA_DIR = "_iceberg";

    private final Catalog catalog;
    private final CatalogConfig config;
    private final URI storageRoot;
    private final URI warehouseRoot;

    private LakeCatalog(Catalog catalog, CatalogConfig config, URI storageRoot) {
        this.catalog = catalog;
        this.config = config;
        this.storageRoot = storageRoot;
        this.warehouseRoot = URI.create(storageRoot + "/warehouse");
    }

    /** Opens the catalog of {@code config}, which must have one. */
    public static LakeCatalog open(SluiceConfig config) throws IOException {
        return open(config.catalog(), config.rootUri());
    }

    /** Opens {@code catalog} for the lake at {@code storageRoot}. */
    public static LakeCatalog open(CatalogConfig catalog, URI storageRoot) throws IOException {
        if (!catalog.isEnabled()) {
            throw new IllegalArgumentException("catalog.type is none: no catalog to open");
        }
        if (catalog.type() == io.sluice.config.CatalogType.SQLITE) {
            Path parent = catalog.sqlitePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
        }
        URI warehouseRoot = URI.create(storageRoot + "/warehouse");
        Map<String, String> props = catalog.icebergProperties(warehouseRoot);
        // Hadoop's file systems (under Iceberg's HadoopFileIO) keep the context class loader of
        // the thread that first loads them, in static state and a shutdown hook, and so do
        // Iceberg's pool threads (IcebergWorkers); in a Flink task that is the job's class loader,
        // closed when the job ends. Load and start them with Sluice's own.
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(LakeCatalog.class.getClassLoader());
        // The JDBC catalog creates its own tables in the database when it opens; two subtasks of
        // this JVM opening a new database at once would race on that.
        synchronized (LakeCatalog.class) {
            try {
                IcebergWorkers.start();
                Configuration conf = new Configuration();
                conf.setClassLoader(LakeCatalog.class.getClassLoader());
                FileSystem.getLocal(conf);
                Catalog opened = CatalogUtil.buildIcebergCatalog(catalog.name(), props, conf);
                return new LakeCatalog(opened, catalog, storageRoot);
            } finally {
                thread.setContextClassLoader(previous);
            }
        }
    }

    /** The Iceberg catalog itself. */
    public Catalog catalog() {
        return catalog;
    }

    public TableIdentifier identifier(String table) {
        return TableIdentifier.of(Namespace.of(config.namespace()), table);
    }

    /** {@code <storage.root>/warehouse/_iceberg/<table>}. */
    public String location(String table) {
        return warehouseRoot + "/" + METADATA_DIR + "/" + table;
    }

    /** {@code <storage.root>/<zone>/_iceberg/<name>}, for a table of another zone of the lake. */
    public String location(String zone, String name) {
        return storageRoot + "/" + zone + "/" + METADATA_DIR + "/" + name;
    }

    /** The Iceberg table of a warehouse table, created (empty) if the catalog has none yet. */
    public Table table(TableConfig table) {
        Schema schema = IcebergTableSpec.schema(table);
        return table(
                table.name(),
                schema,
                IcebergTableSpec.partitionSpec(schema, table),
                IcebergTableSpec.sortOrder(schema, table),
                location(table.name()),
                IcebergTableSpec.properties(table));
    }

    /**
     * The Iceberg table {@code name} in the lake's namespace, created (empty) with this layout if
     * the catalog has none yet, with a name mapping (the lake's files carry no Iceberg field ids:
     * readers map columns by name).
     */
    public Table table(
            String name,
            Schema schema,
            PartitionSpec spec,
            SortOrder order,
            String location,
            Map<String, String> properties) {
        TableIdentifier id = identifier(name);
        try {
            return evolved(catalog.loadTable(id), schema);
        } catch (NoSuchTableException missing) {
            // Created below.
        }
        createNamespace();
        try {
            Transaction create =
                    catalog.buildTable(id, schema)
                            .withPartitionSpec(spec)
                            .withSortOrder(order)
                            .withLocation(location)
                            .withProperties(properties)
                            .createTransaction();
            // The mapping needs the ids the catalog assigned, so it is set in the same transaction.
            mapNames(create);
            create.commitTransaction();
        } catch (RuntimeException raced) {
            // Another subtask created it first (SQLite reports that as a plain SQL error):
            // theirs is the same table.
            if (!catalog.tableExists(id)) {
                throw raced;
            }
        }
        return catalog.loadTable(id);
    }

    /**
     * {@code table} with the columns {@code schema} adds and the types it widens (a field added
     * with a default, int to long), as the table's Avro schema evolves: the warehouse's newer files
     * carry them, and Iceberg's readers see only what the table's schema and name mapping name.
     * Columns are never dropped or narrowed here: older files still hold them.
     */
    private Table evolved(Table table, Schema schema) {
        for (int attempt = 0; ; attempt++) {
            if (table.updateSchema().unionByNameWith(schema).apply().sameSchema(table.schema())) {
                return table;
            }
            try {
                Transaction evolve = table.newTransaction();
                evolve.updateSchema().unionByNameWith(schema).commit();
                mapNames(evolve);
                evolve.commitTransaction();
            } catch (RuntimeException raced) {
                // Another subtask evolved it at the same time: look again.
                if (attempt >= 2) {
                    throw raced;
                }
            }
            table.refresh();
        }
    }

    /**
     * Sets the default name mapping of the schema {@code tx} leaves the table with: the lake's
     * files carry no Iceberg field ids, so readers map their columns by name.
     */
    private static void mapNames(Transaction tx) {
        tx.updateProperties()
                .set(
                        TableProperties.DEFAULT_NAME_MAPPING,
                        NameMappingParser.toJson(MappingUtil.create(tx.table().schema())))
                .commit();
    }

    private void createNamespace() {
        if (catalog instanceof SupportsNamespaces namespaces) {
            Namespace ns = Namespace.of(config.namespace());
            if (!namespaces.namespaceExists(ns)) {
                try {
                    namespaces.createNamespace(ns);
                } catch (RuntimeException raced) {
                    // Created by another subtask (SQLite reports that as a plain SQL error).
                    if (!namespaces.namespaceExists(ns)) {
                        throw raced;
                    }
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (catalog instanceof Closeable closeable) {
            closeable.close();
        }
    }
}
