package io.sluice.features.training;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import io.sluice.lake.ParquetFiles;
import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
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
 * #csvSchema}): a label of whole numbers stays a number in the training set, not text. Its rows
 * pass into the training set unchanged.
 *
 * @param file where it was read from
 * @param schema its columns
 * @param rows its rows, in file order
 */
public record Spine(Path file, Schema schema, List<GenericRecord> rows) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

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
     * hold ({@link #csvSchema}), except those named in {@code text}, which stay text (entity keys
     * and the time column: a key {@code 42} is the string {@code "42"} to the warehouse).
     */
    public static Rows open(Path file, Set<String> text) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--spine: no such file: " + file);
        }
        if (isParquet(file.getFileName().toString())) {
            return parquet(new LocalInputFile(file), file.toString());
        }
        Schema typed = csvSchema(file, text);
        return csv(Files.newBufferedReader(file, StandardCharsets.UTF_8), file.toString(), typed);
    }

    private static final Pattern WHOLE = Pattern.compile("-?[0-9]+");
    private static final Pattern DECIMAL =
            Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");

    /**
     * The columns of a CSV spine, typed by one pass over its values: a column whose every non-empty
     * value is a whole number written as Java writes it (no sign but {@code -}, no leading zeros:
     * {@code 007} is an identifier, not seven) is a nullable long; one whose every non-empty value
     * is a decimal number is a nullable double; any other, or one named in {@code text}, or one
     * with no value at all, is text. In a number column an empty value is null.
     */
    static Schema csvSchema(Path file, Set<String> text) throws IOException {
        try (Rows rows =
                csv(Files.newBufferedReader(file, StandardCharsets.UTF_8), file.toString(), null)) {
            List<Schema.Field> columns = rows.schema().getFields();
            int n = columns.size();
            boolean[] whole = new boolean[n];
            boolean[] decimal = new boolean[n];
            boolean[] seen = new boolean[n];
            java.util.Arrays.fill(whole, true);
            java.util.Arrays.fill(decimal, true);
            for (GenericRecord r = rows.next(); r != null; r = rows.next()) {
                for (int c = 0; c < n; c++) {
                    String v = (String) r.get(c);
                    if (v.isEmpty() || !decimal[c]) {
                        continue;
                    }
                    seen[c] = true;
                    if (WHOLE.matcher(v).matches()) {
                        // Digits with leading zeros or beyond a long are an identifier.
                        boolean isLong = isLong(v);
                        whole[c] &= isLong;
                        decimal[c] &= isLong;
                    } else {
                        whole[c] = false;
                        decimal[c] &= DECIMAL.matcher(v).matches();
                    }
                }
            }
            List<Schema.Field> fields = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                String name = columns.get(c).name();
                Schema.Type type =
                        !seen[c] || text.contains(name)
                                ? Schema.Type.STRING
                                : whole[c]
                                        ? Schema.Type.LONG
                                        : decimal[c] ? Schema.Type.DOUBLE : Schema.Type.STRING;
                fields.add(
                        new Schema.Field(
                                name,
                                type == Schema.Type.STRING
                                        ? Schema.create(type)
                                        : Schema.createUnion(
                                                Schema.create(Schema.Type.NULL),
                                                Schema.create(type))));
            }
            return Schema.createRecord("spine", null, "io.sluice.training", false, fields);
        }
    }

    /** Whether {@code v}, digits with an optional minus, is a long as Java writes it. */
    private static boolean isLong(String v) {
        try {
            return Long.toString(Long.parseLong(v)).equals(v);
        } catch (NumberFormatException e) {
            return false; // beyond a long
        }
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
            if (parquet.containsField(f.name())
                    && parquet.getType(f.name()).isPrimitive()
                    && parquet.getType(f.name()).getLogicalTypeAnnotation()
                            instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts
                    && ts.getUnit() == LogicalTypeAnnotation.TimeUnit.NANOS
                    && nonNull(type).getType() == Schema.Type.LONG
                    && nonNull(type).getLogicalType() == null) {
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

    /**
     * The rows of a CSV spine with a header row: as {@code typed} types its columns ({@link
     * #csvSchema}), or every column as text when it is null.
     */
    static Rows csv(Reader in, String file, Schema typed) throws IOException {
        CsvMapper mapper = new CsvMapper();
        mapper.enable(CsvParser.Feature.WRAP_AS_ARRAY);
        MappingIterator<String[]> it;
        try {
            it = mapper.readerFor(String[].class).readValues(in);
            if (!it.hasNext()) {
                throw new IllegalArgumentException(
                        "--spine: " + file + " is empty (no header row)");
            }
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
        String[] header = it.next();
        List<Schema.Field> fields = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String column : header) {
            String c = column.trim();
            if (!NAME.matcher(c).matches() || !seen.add(c)) {
                it.close();
                throw new IllegalArgumentException(
                        "--spine: "
                                + file
                                + ": column name '"
                                + column
                                + "' must be unique and match [A-Za-z_][A-Za-z0-9_]*");
            }
            fields.add(new Schema.Field(c, Schema.create(Schema.Type.STRING)));
        }
        Schema schema =
                typed != null
                        ? typed
                        : Schema.createRecord("spine", null, "io.sluice.training", false, fields);
        if (typed != null
                && !fields.stream()
                        .map(Schema.Field::name)
                        .toList()
                        .equals(typed.getFields().stream().map(Schema.Field::name).toList())) {
            it.close();
            throw new IllegalArgumentException(
                    "--spine: " + file + " changed while it was read: its header is now " + fields);
        }
        Schema.Type[] types = new Schema.Type[fields.size()];
        for (int c = 0; c < types.length; c++) {
            types[c] = nonNull(schema.getFields().get(c).schema()).getType();
        }
        return new Rows() {
            int line = 1;

            @Override
            public Schema schema() {
                return schema;
            }

            @Override
            public GenericRecord next() throws IOException {
                while (it.hasNext()) {
                    String[] values = it.next();
                    line++;
                    if (values.length == 1 && values[0].isEmpty()) {
                        continue; // a blank line
                    }
                    if (values.length != header.length) {
                        throw new IllegalArgumentException(
                                String.format(
                                        "--spine: %s line %d has %d fields, the header %d",
                                        file, line, values.length, header.length));
                    }
                    GenericData.Record r = new GenericData.Record(schema);
                    for (int c = 0; c < values.length; c++) {
                        r.put(c, value(values[c], types[c], c));
                    }
                    return r;
                }
                return null;
            }

            private Object value(String v, Schema.Type type, int column) {
                try {
                    return switch (type) {
                        case LONG -> v.isEmpty() ? null : Long.parseLong(v);
                        case DOUBLE -> v.isEmpty() ? null : Double.parseDouble(v);
                        default -> v;
                    };
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(
                            String.format(
                                    "--spine: %s line %d, column %s: '%s' is not a %s like the"
                                            + " column's other values",
                                    file, line, header[column].trim(), v, type.getName()));
                }
            }

            @Override
            public void close() throws IOException {
                it.close();
            }
        };
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
            LogicalType type = nonNull(column.schema()).getLogicalType();
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

    static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        for (Schema branch : schema.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                return branch;
            }
        }
        return schema;
    }
}
