package io.sluice.lake;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * The warehouse's view of a table schema: the table's current Avro schema with two changes to its
 * top-level fields (nullable or not), so that every engine reads the Parquet files the same way:
 *
 * <ul>
 *   <li>{@code timestamp-millis} becomes {@code timestamp-micros}, which parquet-avro writes as
 *       {@code INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)} as the storage contract asks;
 *   <li>an enum becomes a string, which parquet-avro writes as {@code BINARY (STRING)}: with
 *       Parquet's {@code ENUM} annotation pyarrow, pandas and Polars read bytes, and {@code device
 *       == "WEB"} silently matches nothing.
 * </ul>
 *
 * Every other type stays as declared (a {@code float} stays FLOAT, an {@code int} INT32).
 */
public final class WarehouseSchema {

    private final Schema schema;
    private final int[] millisFields;
    private final int[] enumFields;

    private WarehouseSchema(Schema schema, int[] millisFields, int[] enumFields) {
        this.schema = schema;
        this.millisFields = millisFields;
        this.enumFields = enumFields;
    }

    /** Derives the warehouse schema of a table's record schema. */
    public static WarehouseSchema of(Schema table) {
        List<Schema.Field> fields = new ArrayList<>();
        List<Integer> millis = new ArrayList<>();
        List<Integer> enums = new ArrayList<>();
        for (Schema.Field field : table.getFields()) {
            Schema value = valueType(field.schema());
            if (value.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
                millis.add(field.pos());
            } else if (value.getType() == Schema.Type.ENUM) {
                enums.add(field.pos());
            }
            fields.add(new Schema.Field(field, widen(field.schema())));
        }
        Schema schema =
                Schema.createRecord(
                        table.getName(), table.getDoc(), table.getNamespace(), false, fields);
        return new WarehouseSchema(schema, toArray(millis), toArray(enums));
    }

    public Schema schema() {
        return schema;
    }

    /** Converts a record of the table schema to this schema's values, in place. */
    public void convert(GenericData.Record record) {
        for (int pos : millisFields) {
            Object value = record.get(pos);
            if (value != null) {
                record.put(pos, Math.multiplyExact((Long) value, 1000L));
            }
        }
        for (int pos : enumFields) {
            Object value = record.get(pos);
            if (value != null) {
                record.put(pos, value.toString());
            }
        }
    }

    /**
     * Converts a record of the table schema holding this schema's values back to the table's, in
     * place: the inverse of {@link #convert}. Microseconds divide exactly (the warehouse multiplied
     * millis), and a string becomes its enum symbol.
     */
    public void revert(GenericData.Record record) {
        for (int pos : millisFields) {
            Object value = record.get(pos);
            if (value != null) {
                record.put(pos, Math.floorDiv((Long) value, 1000L));
            }
        }
        Schema table = record.getSchema();
        for (int pos : enumFields) {
            Object value = record.get(pos);
            if (value != null) {
                record.put(
                        pos,
                        GenericData.get()
                                .createEnum(
                                        value.toString(),
                                        valueType(table.getFields().get(pos).schema())));
            }
        }
    }

    /** The non-null branch of a nullable union, or the schema itself. */
    private static Schema valueType(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            for (Schema branch : schema.getTypes()) {
                if (branch.getType() != Schema.Type.NULL) {
                    return branch;
                }
            }
        }
        return schema;
    }

    private static Schema widen(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            List<Schema> branches = new ArrayList<>();
            boolean changed = false;
            for (Schema branch : schema.getTypes()) {
                Schema widened = widen(branch);
                changed |= widened != branch;
                branches.add(widened);
            }
            return changed ? Schema.createUnion(branches) : schema;
        }
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        }
        if (schema.getType() == Schema.Type.ENUM) {
            return Schema.create(Schema.Type.STRING);
        }
        return schema;
    }

    private static int[] toArray(List<Integer> positions) {
        return positions.stream().mapToInt(Integer::intValue).toArray();
    }
}
