package io.sluice.features.training;

import io.sluice.config.Nullable;
import io.sluice.lake.ParquetFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;

/**
 * A training set's spine: rows of (entity key, timestamp, labels…), read from Parquet (columns keep
 * their types) or CSV with a header, whose columns are typed by what they hold ({@link
 * SpineCsv#schema}): a label of whole numbers stays a number in the training set, not text. Its
 * rows pass into the training set unchanged.
 *
 * @param file where it was read from
 * @param schema its columns
 * @param rows its rows, in file order
 */
public record Spine(Path file, Schema schema, List<GenericRecord> rows) {

    static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Reads a {@code .parquet} or {@code .csv} spine whole (for spines that fit in memory). */
    public static Spine read(Path file) throws IOException {
        try (Rows in = open(file)) {
            List<GenericRecord> rows = new ArrayList<>();
            for (GenericRecord r = in.next(); r != null; r = in.next()) {
                rows.add(r);
            }
            return new Spine(file, in.schema(), rows);
        }
    }

    /**
     * A spine's rows, read one at a time in file order, so that a spine of any size passes through
     * a bounded memory.
     */
    public interface Rows extends Closeable {
        /** The spine's columns. */
        Schema schema();

        /** The next row, or null after the last. */
        GenericRecord next() throws IOException;
    }

    /** Whether {@code file} is a Parquet spine (else CSV); an error for any other name. */
    static boolean isParquet(String file) {
        String name = file.toLowerCase(java.util.Locale.ROOT);
        if (name.endsWith(".parquet")) {
            return true;
        }
        if (name.endsWith(".csv")) {
            return false;
        }
        throw new IllegalArgumentException(
                "--spine: " + file + " must be a .parquet or a .csv file (with a header row)");
    }

    /** Opens a {@code .parquet} or {@code .csv} spine, every CSV column typed by what it holds. */
    public static Rows open(Path file) throws IOException {
        return open(file, Set.of());
    }

    /**
     * Opens a {@code .parquet} or {@code .csv} spine; a CSV spine's columns are typed by what they
     * hold ({@link SpineCsv#schema}), except those named in {@code text}, which stay text (entity
     * keys and the time column: a key {@code 42} is the string {@code "42"} to the warehouse).
     */
    public static Rows open(Path file, Set<String> text) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--spine: no such file: " + file);
        }
        if (isParquet(file.getFileName().toString())) {
            return parquet(new LocalInputFile(file), file.toString());
        }
        Schema typed = SpineCsv.schema(file, text);
        return SpineCsv.rows(
                Files.newBufferedReader(file, StandardCharsets.UTF_8), file.toString(), typed);
    }

    /** The rows of a Parquet spine, typed as written ({@link #withNanos}). */
    static Rows parquet(InputFile file, String name) throws IOException {
        MessageType parquet;
        try (ParquetFileReader footer = ParquetFiles.openParquet(file)) {
            parquet = footer.getFileMetaData().getSchema();
        }
        ParquetReader<GenericRecord> reader =
                AvroParquetReader.<GenericRecord>builder(file, new PlainParquetConfiguration())
                        .withDataModel(GenericData.get())
                        .build();
        GenericRecord first = reader.read();
        if (first == null) {
            reader.close();
            throw new IllegalArgumentException("--spine: " + name + " has no rows");
        }
        Schema schema = withNanos(first.getSchema(), parquet);
        return new Rows() {
            GenericRecord pending = first;

            @Override
            public Schema schema() {
                return schema;
            }

            @Override
            public GenericRecord next() throws IOException {
                GenericRecord r = pending;
                pending = r == null ? null : reader.read();
                return r;
            }

            @Override
            public void close() throws IOException {
                reader.close();
            }
        };
    }

    /**
     * {@code avro} with the Avro {@code timestamp-nanos} (or {@code local-timestamp-nanos}) type on
     * each top-level column that {@code parquet} declares {@code TIMESTAMP(NANOS)}: parquet-avro
     * reads such a column (as pandas and DuckDB write them) as a plain long, which would otherwise
     * be taken for epoch millis. A column whose Avro type already says its unit is kept.
     */
    static Schema withNanos(Schema avro, MessageType parquet) {
        List<Schema.Field> fields = new ArrayList<>();
        boolean changed = false;
        for (Schema.Field f : avro.getFields()) {
            Schema type = f.schema();
            Schema value = Nullable.valueType(type);
            if (parquet.containsField(f.name())
                    && parquet.getType(f.name()).isPrimitive()
                    && parquet.getType(f.name()).getLogicalTypeAnnotation()
                            instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts
                    && ts.getUnit() == LogicalTypeAnnotation.TimeUnit.NANOS
                    && value.getType() == Schema.Type.LONG
                    && value.getLogicalType() == null) {
                Schema nanos =
                        (ts.isAdjustedToUTC()
                                        ? LogicalTypes.timestampNanos()
                                        : LogicalTypes.localTimestampNanos())
                                .addToSchema(Schema.create(Schema.Type.LONG));
                if (type.getType() == Schema.Type.UNION) {
                    List<Schema> branches = new ArrayList<>();
                    for (Schema branch : type.getTypes()) {
                        branches.add(branch.getType() == Schema.Type.NULL ? branch : nanos);
                    }
                    nanos = Schema.createUnion(branches);
                }
                type = nanos;
                changed = true;
            }
            fields.add(new Schema.Field(f, type));
        }
        if (!changed) {
            return avro;
        }
        Schema patched =
                Schema.createRecord(
                        avro.getName(), avro.getDoc(), avro.getNamespace(), avro.isError(), fields);
        avro.getObjectProps().forEach(patched::addProp);
        return patched;
    }

    /** The column called {@code name}, or an error that names it and lists the columns. */
    public Schema.Field column(String name, String what) {
        Schema.Field f = schema.getField(name);
        if (f == null) {
            throw new IllegalArgumentException(
                    String.format(
                            "--spine: %s has no column '%s' (%s); its columns: %s",
                            file,
                            name,
                            what,
                            String.join(
                                    ", ",
                                    schema.getFields().stream().map(Schema.Field::name).toList())));
        }
        return f;
    }

    /**
     * Row {@code row}'s time in {@code column}, at the column's own precision: a micro- or
     * nanosecond time is kept whole, never rounded to a millisecond, since the window's head and
     * tail need it rounded in opposite directions ({@link
     * io.sluice.features.agg.Windows#floorMillis}, {@link
     * io.sluice.features.agg.Windows#ceilMillis}). Accepts Avro timestamp types (millis, micros or
     * nanos, UTC or local, read as UTC), integers (epoch millis), and text as an ISO instant
     * ({@code 2026-11-21T10:15:00.123456Z}) or a UTC date-time ({@code 2026-11-21
     * 10:15:00[.fffffffff]}).
     */
    public Instant time(int row, Schema.Field column) {
        return time(rows.get(row).get(column.pos()), column, row);
    }

    /** {@link #time(int, Schema.Field)} of a value of {@code column} in spine row {@code row}. */
    static Instant time(Object v, Schema.Field column, long row) {
        if (v == null) {
            throw new IllegalArgumentException(
                    String.format("--spine: row %d has no %s (null)", row + 1, column.name()));
        }
        if (v instanceof Long || v instanceof Integer) {
            long n = ((Number) v).longValue();
            LogicalType type = Nullable.valueType(column.schema()).getLogicalType();
            if (type instanceof LogicalTypes.TimestampMicros
                    || type instanceof LogicalTypes.LocalTimestampMicros) {
                return Instant.ofEpochSecond(
                        Math.floorDiv(n, 1_000_000L), Math.floorMod(n, 1_000_000L) * 1_000L);
            }
            if (type instanceof LogicalTypes.TimestampNanos
                    || type instanceof LogicalTypes.LocalTimestampNanos) {
                return Instant.ofEpochSecond(
                        Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
            }
            return Instant.ofEpochMilli(n);
        }
        String text = v.toString().trim();
        try {
            if (text.endsWith("Z") || text.matches(".*[+-]\\d\\d:\\d\\d$")) {
                return Instant.parse(text.replace(' ', 'T'));
            }
            if (text.matches("-?\\d+")) {
                return Instant.ofEpochMilli(Long.parseLong(text));
            }
            return LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException | NumberFormatException e) {
            throw new IllegalArgumentException(
                    String.format(
                            "--spine: row %d: %s '%s' is not a timestamp (ISO instant, UTC"
                                    + " 'yyyy-MM-dd HH:mm:ss', or epoch millis)",
                            row + 1, column.name(), text));
        }
    }

    /** Row {@code row}'s entity key as text; an error if it is null. */
    public String key(int row, Schema.Field column) {
        Object v = rows.get(row).get(column.pos());
        if (v == null) {
            throw new IllegalArgumentException(
                    String.format("--spine: row %d has no %s (null)", row + 1, column.name()));
        }
        return v.toString();
    }

    /**
     * Row {@code row}'s entity key in {@code column} as text, or null when it is null or empty: a
     * row with no entity of a view (an item-less row of a user and item spine, say).
     */
    public String keyOrNull(int row, Schema.Field column) {
        return keyOrNull(rows.get(row).get(column.pos()));
    }

    /** A key value as text, or null when it is null or empty. */
    static String keyOrNull(Object v) {
        if (v == null) {
            return null;
        }
        String key = v.toString();
        return key.isEmpty() ? null : key;
    }
}
