package io.sluice.lake;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * The warehouse's view of a table schema: the table's current Avro schema with every top-level
 * {@code timestamp-millis} field widened to {@code timestamp-micros}, so that parquet-avro writes
 * {@code INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)} as the storage contract asks. Every other
 * type stays as declared (a {@code float} stays FLOAT, an {@code int} INT32).
 */
public final class WarehouseSchema {

    private final Schema schema;
    private final int[] millisFields;

    private WarehouseSchema(Schema schema, int[] millisFields) {
        this.schema = schema;
        this.millisFields = millisFields;
    }

    /** Derives the warehouse schema of a table's record schema. */
    public static WarehouseSchema of(Schema table) {
        List<Schema.Field> fields = new ArrayList<>();
        List<Integer> converted = new ArrayList<>();
        for (Schema.Field field : table.getFields()) {
            Schema widened = widen(field.schema());
            if (widened != field.schema()) {
                converted.add(field.pos());
            }
            fields.add(new Schema.Field(field, widened));
        }
        Schema schema =
                Schema.createRecord(
                        table.getName(), table.getDoc(), table.getNamespace(), false, fields);
        return new WarehouseSchema(
                schema, converted.stream().mapToInt(Integer::intValue).toArray());
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
        return schema;
    }
}
