package io.sluice.lake;

import io.sluice.config.Nullable;
import io.sluice.config.TableConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.function.Function;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The statements that make a warehouse table queryable in each engine, exactly as the files are
 * written: the Parquet files' column types, the {@code dt}/{@code hr} partitions, and, where the
 * engine reads it, the bucketing contract ({@code CLUSTERED BY key SORTED BY (key, event time, id)
 * INTO n BUCKETS}, {@code bucketing_version 2}). Each script is one or two statements ending in
 * {@code ;}, with {@code --} notes, that its engine runs as printed.
 */
public final class TableDdl {

    /** The engines a script is written for. */
    public enum Dialect {
        /** Hive's {@code CREATE EXTERNAL TABLE} with the bucketing contract. */
        HIVE,
        /**
         * A Spark SQL data source table, unbucketed: Spark buckets with a hash of its own, so a
         * table declared bucketed would prune the wrong files.
         */
        SPARK,
        /** Trino's Hive connector: its table properties, and the timestamp precision it reads. */
        TRINO,
        /** A DuckDB view over the files. */
        DUCKDB;

        /** The name on the command line. */
        public String option() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private TableDdl() {}

    /** The script for {@code table} stored at {@code location}, in {@code dialect}. */
    public static String script(TableConfig table, URI location, Dialect dialect) {
        return switch (dialect) {
            case HIVE -> hive(table, location);
            case SPARK -> spark(table, location);
            case TRINO -> trino(table, location);
            case DUCKDB -> duckdb(table, location);
        };
    }

    /** Hive's {@code CREATE EXTERNAL TABLE}, then the partitions' registration. */
    static String hive(TableConfig table, URI location) {
        Schema schema = WarehouseSchema.of(table.schema()).schema();
        String sortedBy =
                String.join(
                        ", ",
                        hiveName(table.key()) + " ASC",
                        hiveName(table.eventTime()) + " ASC",
                        hiveName(table.id()) + " ASC");
        return "CREATE EXTERNAL TABLE IF NOT EXISTS "
                + hiveName(table.name())
                + " (\n"
                + columns(schema, TableDdl::hiveName, TableDdl::hiveType, TableDdl::literal)
                + "\n)\n"
                + (schema.getDoc() != null ? "COMMENT " + literal(schema.getDoc()) + "\n" : "")
                + "PARTITIONED BY (`dt` STRING, `hr` STRING)\n"
                + "CLUSTERED BY ("
                + hiveName(table.key())
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
                + ");\n"
                + "MSCK REPAIR TABLE "
                + hiveName(table.name())
                + ";\n";
    }

    /** A Spark SQL data source table over the files, then the partitions' registration. */
    static String spark(TableConfig table, URI location) {
        Schema schema = WarehouseSchema.of(table.schema()).schema();
        return "-- Unbucketed on purpose: Spark's own bucketing hash is not Hive's, so a Spark"
                + " table declared\n"
                + "-- bucketed would prune the wrong files. Rows are still sorted by "
                + table.key()
                + " in each file.\n"
                + "CREATE TABLE IF NOT EXISTS "
                + hiveName(table.name())
                + " (\n"
                + columns(schema, TableDdl::hiveName, TableDdl::hiveType, TableDdl::literal)
                + ",\n  `dt` STRING,\n  `hr` STRING\n)\n"
                + "USING PARQUET\n"
                + "PARTITIONED BY (`dt`, `hr`)\n"
                + "LOCATION "
                + literal(location.toString())
                + "\n"
                + (schema.getDoc() != null ? "COMMENT " + literal(schema.getDoc()) + "\n" : "")
                + ";\n"
                + "MSCK REPAIR TABLE "
                + hiveName(table.name())
                + ";\n";
    }

    /** Trino's Hive connector {@code CREATE TABLE}, then the partitions' registration. */
    static String trino(TableConfig table, URI location) {
        Schema schema = WarehouseSchema.of(table.schema()).schema();
        String name = "hive.\"default\"." + trinoName(table.name());
        return "-- Trino's Hive connector, in catalog hive and schema default: rename both to"
                + " yours.\n"
                + "-- Timestamps are timestamp(3): the connector's default"
                + " hive.timestamp-precision is\n"
                + "-- MILLISECONDS and it refuses timestamp(6); the files hold microseconds,"
                + " read rounded to\n"
                + "-- milliseconds. With hive.timestamp-precision=MICROSECONDS in the catalog,"
                + " declare timestamp(6).\n"
                + "CREATE TABLE "
                + name
                + " (\n"
                + columns(schema, TableDdl::trinoName, TableDdl::trinoType, TableDdl::sqlLiteral)
                + ",\n  \"dt\" varchar,\n  \"hr\" varchar\n)\n"
                + (schema.getDoc() != null ? "COMMENT " + sqlLiteral(schema.getDoc()) + "\n" : "")
                + "WITH (\n"
                + "  external_location = "
                + sqlLiteral(location.toString())
                + ",\n"
                + "  format = 'PARQUET',\n"
                + "  partitioned_by = ARRAY['dt', 'hr'],\n"
                + "  bucketed_by = ARRAY["
                + sqlLiteral(table.key())
                + "],\n"
                + "  bucketing_version = 2,\n"
                + "  bucket_count = "
                + table.buckets()
                + ",\n"
                + "  sorted_by = ARRAY["
                + sqlLiteral(table.key())
                + ", "
                + sqlLiteral(table.eventTime())
                + ", "
                + sqlLiteral(table.id())
                + "]\n"
                + ");\n"
                + "CALL hive.system.sync_partition_metadata('default', "
                + sqlLiteral(table.name())
                + ", 'ADD');\n";
    }

    /**
     * A DuckDB view over the table's data files ({@code _SUCCESS} manifests are not {@code
     * *.parquet}), with {@code dt} and {@code hr} as text columns.
     */
    static String duckdb(TableConfig table, URI location) {
        String files =
                ("file".equals(location.getScheme()) ? location.getPath() : location.toString())
                                .replaceAll("/+$", "")
                        + "/*/*/*.parquet";
        return ("file".equals(location.getScheme())
                        ? ""
                        : "-- An object store needs DuckDB's httpfs extension and a secret"
                                + " (CREATE SECRET) for its credentials.\n")
                + "CREATE OR REPLACE VIEW "
                + trinoName(table.name())
                + " AS\nSELECT * FROM read_parquet("
                + sqlLiteral(files)
                + ", hive_partitioning = true,\n"
                + "  hive_types = {'dt': 'VARCHAR', 'hr': 'VARCHAR'});\n";
    }

    private static String columns(
            Schema schema,
            Function<String, String> quote,
            Function<Schema, String> type,
            Function<String, String> literal) {
        List<String> columns = new ArrayList<>();
        for (Schema.Field field : schema.getFields()) {
            String column = "  " + quote.apply(field.name()) + " " + type.apply(field.schema());
            if (field.doc() != null) {
                column += " COMMENT " + literal.apply(field.doc());
            }
            columns.add(column);
        }
        return String.join(",\n", columns);
    }

    /** Hive's (and Spark's) type for an Avro schema as the warehouse writes it to Parquet. */
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
                    fields.add(hiveName(f.name()) + ":" + hiveType(f.schema()));
                }
                yield fields.toString();
            }
            case UNION -> hiveType(nonNull(schema));
            case NULL -> throw new IllegalArgumentException("A null-only column has no type");
        };
    }

    /** Trino's type for an Avro schema as the warehouse writes it to Parquet. */
    static String trinoType(Schema schema) {
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.TimestampMicros
                || logical instanceof LogicalTypes.TimestampMillis) {
            return "timestamp(3)";
        }
        if (logical instanceof LogicalTypes.Date) {
            return "date";
        }
        if (logical instanceof LogicalTypes.Decimal d) {
            return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
        }
        return switch (schema.getType()) {
            case STRING, ENUM -> "varchar";
            case INT -> "integer";
            case LONG -> "bigint";
            case FLOAT -> "real";
            case DOUBLE -> "double";
            case BOOLEAN -> "boolean";
            case BYTES, FIXED -> "varbinary";
            case ARRAY -> "array(" + trinoType(schema.getElementType()) + ")";
            case MAP -> "map(varchar, " + trinoType(schema.getValueType()) + ")";
            case RECORD -> {
                StringJoiner fields = new StringJoiner(", ", "row(", ")");
                for (Schema.Field f : schema.getFields()) {
                    fields.add(trinoName(f.name()) + " " + trinoType(f.schema()));
                }
                yield fields.toString();
            }
            case UNION -> trinoType(nonNull(schema));
            case NULL -> throw new IllegalArgumentException("A null-only column has no type");
        };
    }

    private static Schema nonNull(Schema union) {
        Schema value = Nullable.valueType(union);
        if (value == union) {
            throw new IllegalArgumentException(
                    "Only nullable unions map to a column, not " + union);
        }
        return value;
    }

    private static String hiveName(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    private static String trinoName(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** A Hive string literal: backslash escapes. */
    private static String literal(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** A standard SQL string literal (Trino, DuckDB): quotes doubled, backslashes as they are. */
    private static String sqlLiteral(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
