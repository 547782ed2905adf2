package io.sluice.lake;

import io.sluice.config.TableConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The Hive {@code CREATE EXTERNAL TABLE} statement that describes a warehouse table exactly: its
 * columns with the Parquet files' types, the {@code dt}/{@code hr} partitions, and the bucketing
 * contract ({@code CLUSTERED BY key SORTED BY (key, event time, id) INTO n BUCKETS}, {@code
 * bucketing_version 2}). Spark, Trino's Hive connector and Hive itself read the table through it.
 */
public final class HiveDdl {

    private HiveDdl() {}

    /** The DDL for {@code table} stored at {@code location}. */
    public static String createTable(TableConfig table, URI location) {
        Schema schema = WarehouseSchema.of(table.schema()).schema();
        List<String> columns = new ArrayList<>();
        for (Schema.Field field : schema.getFields()) {
            String column = "  " + quote(field.name()) + " " + hiveType(field.schema());
            if (field.doc() != null) {
                column += " COMMENT " + literal(field.doc());
            }
            columns.add(column);
        }
        String sortedBy =
                String.join(
                        ", ",
                        quote(table.key()) + " ASC",
                        quote(table.eventTime()) + " ASC",
                        quote(table.id()) + " ASC");
        return "CREATE EXTERNAL TABLE IF NOT EXISTS "
                + quote(table.name())
                + " (\n"
                + String.join(",\n", columns)
                + "\n)\n"
                + (schema.getDoc() != null ? "COMMENT " + literal(schema.getDoc()) + "\n" : "")
                + "PARTITIONED BY (`dt` STRING, `hr` STRING)\n"
                + "CLUSTERED BY ("
                + quote(table.key())
                + ") SORTED BY ("
                + sortedBy
                + ") INTO "
                + table.buckets()
                + " BUCKETS\n"
                + "STORED AS PARQUET\n"
                + "LOCATION "
                + literal(location.toString())
                + "\n"
                + "TBLPROPERTIES (\n"
                + "  'bucketing_version'='2',\n"
                + "  'parquet.compression'='ZSTD'\n"
                + ");\n";
    }

    /** Hive's type for an Avro schema as the warehouse writes it to Parquet. */
    static String hiveType(Schema schema) {
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.TimestampMicros
                || logical instanceof LogicalTypes.TimestampMillis) {
            return "TIMESTAMP";
        }
        if (logical instanceof LogicalTypes.Date) {
            return "DATE";
        }
        if (logical instanceof LogicalTypes.Decimal d) {
            return "DECIMAL(" + d.getPrecision() + "," + d.getScale() + ")";
        }
        return switch (schema.getType()) {
            case STRING, ENUM -> "STRING";
            case INT -> "INT";
            case LONG -> "BIGINT";
            case FLOAT -> "FLOAT";
            case DOUBLE -> "DOUBLE";
            case BOOLEAN -> "BOOLEAN";
            case BYTES, FIXED -> "BINARY";
            case ARRAY -> "ARRAY<" + hiveType(schema.getElementType()) + ">";
            case MAP -> "MAP<STRING," + hiveType(schema.getValueType()) + ">";
            case RECORD -> {
                StringJoiner fields = new StringJoiner(",", "STRUCT<", ">");
                for (Schema.Field f : schema.getFields()) {
                    fields.add(quote(f.name()) + ":" + hiveType(f.schema()));
                }
                yield fields.toString();
            }
            case UNION -> {
                List<Schema> branches =
                        schema.getTypes().stream()
                                .filter(s -> s.getType() != Schema.Type.NULL)
                                .toList();
                if (branches.size() != 1) {
                    throw new IllegalArgumentException(
                            "Only nullable unions map to a Hive type, not " + schema);
                }
                yield hiveType(branches.get(0));
            }
            case NULL -> throw new IllegalArgumentException("A null-only column has no Hive type");
        };
    }

    private static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    private static String literal(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
