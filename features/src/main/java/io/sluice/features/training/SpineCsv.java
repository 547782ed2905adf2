package io.sluice.features.training;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import io.sluice.config.Nullable;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/** A CSV spine (with a header row): its columns typed by what they hold, and its rows. */
final class SpineCsv {

    private SpineCsv() {}

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
    static Schema schema(Path file, Set<String> text) throws IOException {
        try (Spine.Rows rows =
                rows(
                        Files.newBufferedReader(file, StandardCharsets.UTF_8),
                        file.toString(),
                        null)) {
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

    /**
     * The rows of a CSV spine with a header row: as {@code typed} types its columns ({@link
     * #schema}), or every column as text when it is null.
     */
    static Spine.Rows rows(Reader in, String file, Schema typed) throws IOException {
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
            if (!Spine.NAME.matcher(c).matches() || !seen.add(c)) {
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
            types[c] = Nullable.valueType(schema.getFields().get(c).schema()).getType();
        }
        return new Spine.Rows() {
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
}
