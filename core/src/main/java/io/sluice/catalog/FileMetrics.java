package io.sluice.catalog;

import io.sluice.lake.ParquetFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.stream.Stream;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.ParquetFileReader;

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

    /**
     * The metrics of one Parquet file, from its footer. The footer is read with {@link
     * ParquetFiles#parquetOptions}: Iceberg's {@code ParquetUtil.fileMetrics} opens it with
     * parquet-java's default options, which parse Hadoop's {@code core-default.xml} for every file
     * (most of a small hour's commit time, at 16 files an hour).
     */
    public Metrics of(InputFile parquetFile) {
        try (ParquetFileReader footer = ParquetFiles.openParquet(parquet(parquetFile))) {
            return ParquetUtil.footerMetrics(
                    footer.getFooter(), Stream.empty(), config, nameMapping);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the footer of " + parquetFile.location(), e);
        }
    }

    /** An Iceberg file as parquet-java reads one. */
    private static org.apache.parquet.io.InputFile parquet(InputFile file) {
        return ParquetFiles.parquetFile(
                file.getLength(),
                () -> {
                    org.apache.iceberg.io.SeekableInputStream in = file.newStream();
                    return ParquetFiles.parquetStream(in, in::getPos, in::seek, true);
                });
    }
}
