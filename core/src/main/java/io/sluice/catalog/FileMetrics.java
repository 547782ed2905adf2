package io.sluice.catalog;

import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetUtil;

/**
 * The column metrics Iceberg keeps of a table's Parquet data files, read from their footers. The
 * lake's files carry no Iceberg field ids, so columns are matched by name, through the table's name
 * mapping.
 */
public final class FileMetrics {

    private final NameMapping nameMapping;
    private final MetricsConfig config;

    public FileMetrics(Table table) {
        String mapping = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
        this.nameMapping =
                mapping != null
                        ? NameMappingParser.fromJson(mapping)
                        : MappingUtil.create(table.schema());
        this.config = MetricsConfig.forTable(table);
    }

    /** The metrics of one Parquet file. */
    public Metrics of(InputFile parquetFile) {
        return ParquetUtil.fileMetrics(parquetFile, config, nameMapping);
    }
}
