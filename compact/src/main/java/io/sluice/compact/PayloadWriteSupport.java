package io.sluice.compact;

import io.sluice.lake.WarehouseSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Writes rows held as their Avro encoding in the table's schema ({@link HourRows.Row#payload}) to
 * Parquet in the {@link WarehouseSchema}, with parquet-avro's schema, metadata and values.
 *
 * <p>parquet-avro's {@link AvroWriteSupport} takes a decoded record: every row decoded into a
 * {@code GenericData.Record} with a fresh {@code Utf8} per string, converted, then walked again by
 * type. In {@code bench compact} that decoding and walking took two fifths of the bucket writers'
 * time. Here a table whose top-level fields are all flat values (booleans, numbers, strings, bytes,
 * fixed, enums, each perhaps nullable) is written straight from the encoded bytes: each field read
 * by the Avro binary encoding's rules (applied here: Avro's {@code BinaryDecoder} copies strings
 * and bytes out and does not tell where it is in the array), strings and bytes handed to Parquet as
 * slices of the payload without a copy, a {@code timestamp-millis} multiplied to micros and an enum
 * written as its symbol as {@link WarehouseSchema#convert} does. Those are the same calls {@link
 * AvroWriteSupport} makes for those values, so the file is the same, byte for byte ({@code
 * PayloadWriteSupportTest}). A table with nested records, arrays, maps or unions of several types
 * takes parquet-avro's own path.
 *
 * <p>Parquet may keep the slices it is given (a dictionary's entries, a page's min and max) until
 * the file is closed, so a payload must not change once written: rows own their payload arrays, in
 * memory and when read back from a spill.
 */
final class PayloadWriteSupport extends WriteSupport<byte[]> {

    /** How one top-level field is read from the payload and written. */
    private enum Kind {
        NULL,
        BOOLEAN,
        INT,
        LONG,
        MILLIS_AS_MICROS,
        FLOAT,
        DOUBLE,
        BINARY,
        FIXED,
        ENUM
    }

    /**
     * One top-level field: its kind, the union branch that holds null (-1 when not a nullable
     * union), its Parquet name and index, the fixed size, the enum's symbols.
     */
    private record Field(
            Kind kind, int nullBranch, String name, int index, int fixedSize, Binary[] symbols) {}

    private final Schema tableSchema;
    private final WarehouseSchema warehouseSchema;
    private AvroWriteSupport<GenericData.Record> avro;
    private RecordConsumer consumer;

    /** How each top-level field is written; null when the table takes parquet-avro's path. */
    private List<Field> fields;

    /** parquet-avro's path: the reader, its decoder and the record it reuses. */
    private GenericDatumReader<GenericData.Record> reader;

    private BinaryDecoder decoder;
    private GenericData.Record record;

    /** The payload being written, and where in it the next value starts. */
    private byte[] bytes;

    private int at;

    /**
     * @param tableSchema the schema the payloads are encoded in
     * @param warehouseSchema the schema the file is written in
     */
    PayloadWriteSupport(Schema tableSchema, WarehouseSchema warehouseSchema) {
        this.tableSchema = tableSchema;
        this.warehouseSchema = warehouseSchema;
    }

    /** Whether the rows are written without decoding them to records; known once initialised. */
    boolean direct() {
        return fields != null;
    }

    @Override
    public String getName() {
        return "avro"; // AvroWriteSupport's, which readers use to pick their object model
    }

    @Override
    public WriteContext init(Configuration configuration) {
        return init(new HadoopParquetConfiguration(configuration));
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        // As AvroParquetWriter builds its write support.
        MessageType parquet =
                new AvroSchemaConverter(configuration).convert(warehouseSchema.schema());
        avro = new AvroWriteSupport<>(parquet, warehouseSchema.schema(), GenericData.get());
        fields = plan(tableSchema, parquet);
        if (fields == null) {
            reader = new GenericDatumReader<>(tableSchema);
        }
        return avro.init(configuration);
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.consumer = recordConsumer;
        avro.prepareForWrite(recordConsumer);
    }

    @Override
    public FinalizedWriteContext finalizeWrite() {
        return avro.finalizeWrite();
    }

    @Override
    public void write(byte[] payload) {
        if (fields == null) {
            decoder = DecoderFactory.get().binaryDecoder(payload, decoder);
            try {
                record = reader.read(record, decoder);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            warehouseSchema.convert(record);
            avro.write(record);
            return;
        }
        bytes = payload;
        at = 0;
        consumer.startMessage();
        for (Field field : fields) {
            if (field.kind == Kind.NULL
                    || (field.nullBranch >= 0 && readLong() == field.nullBranch)) {
                continue; // as parquet-avro: no value for an absent optional field
            }
            consumer.startField(field.name, field.index);
            switch (field.kind) {
                case BOOLEAN -> consumer.addBoolean(bytes[at++] != 0);
                case INT -> consumer.addInteger((int) readLong());
                case LONG -> consumer.addLong(readLong());
                case MILLIS_AS_MICROS -> consumer.addLong(Math.multiplyExact(readLong(), 1000L));
                case FLOAT -> consumer.addFloat(Float.intBitsToFloat((int) readLittleEndian(4)));
                case DOUBLE -> consumer.addDouble(Double.longBitsToDouble(readLittleEndian(8)));
                case BINARY -> {
                    int length = (int) readLong();
                    consumer.addBinary(Binary.fromConstantByteArray(bytes, at, length));
                    at += length;
                }
                case FIXED -> {
                    consumer.addBinary(Binary.fromConstantByteArray(bytes, at, field.fixedSize));
                    at += field.fixedSize;
                }
                case ENUM -> consumer.addBinary(field.symbols[(int) readLong()]);
                default -> throw new IllegalStateException(field.kind.name());
            }
            consumer.endField(field.name, field.index);
        }
        consumer.endMessage();
        bytes = null;
    }

    /** A zig-zag varint, Avro's encoding of int, long, lengths and indexes. */
    private long readLong() {
        long raw = 0;
        int shift = 0;
        byte b;
        do {
            b = bytes[at++];
            raw |= (long) (b & 0x7f) << shift;
            shift += 7;
        } while (b < 0);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Avro's encoding of float (4 bytes) and double (8). */
    private long readLittleEndian(int size) {
        long value = 0;
        for (int k = 0; k < size; k++) {
            value |= (long) (bytes[at + k] & 0xff) << (8 * k);
        }
        at += size;
        return value;
    }

    /**
     * The fields' plan, or null when a field is not a flat value (or a string Parquet writes as a
     * UUID): those tables take parquet-avro's path.
     */
    private static List<Field> plan(Schema table, MessageType parquet) {
        List<Field> plan = new ArrayList<>();
        int index = 0;
        for (Schema.Field field : table.getFields()) {
            Schema schema = field.schema();
            int nullBranch = -1;
            if (schema.getType() == Schema.Type.UNION) {
                List<Schema> branches = schema.getTypes();
                if (branches.size() != 2) {
                    return null;
                }
                nullBranch = branches.get(0).getType() == Schema.Type.NULL ? 0 : 1;
                schema = branches.get(1 - nullBranch);
                if (branches.get(nullBranch).getType() != Schema.Type.NULL) {
                    return null;
                }
            }
            if (schema.getType() == Schema.Type.NULL) {
                plan.add(new Field(Kind.NULL, -1, field.name(), -1, 0, null));
                continue;
            }
            Type type = parquet.getType(index);
            Kind kind =
                    switch (schema.getType()) {
                        case BOOLEAN -> Kind.BOOLEAN;
                        case INT -> Kind.INT;
                        case LONG ->
                                schema.getLogicalType() instanceof LogicalTypes.TimestampMillis
                                        ? Kind.MILLIS_AS_MICROS
                                        : Kind.LONG;
                        case FLOAT -> Kind.FLOAT;
                        case DOUBLE -> Kind.DOUBLE;
                        case STRING, BYTES -> Kind.BINARY;
                        case FIXED -> Kind.FIXED;
                        case ENUM -> Kind.ENUM;
                        default -> null;
                    };
            if (kind == null
                    || !type.isPrimitive()
                    || type.getLogicalTypeAnnotation()
                            instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
                return null;
            }
            Binary[] symbols = null;
            if (kind == Kind.ENUM) {
                symbols =
                        schema.getEnumSymbols().stream()
                                .map(Binary::fromString)
                                .toArray(Binary[]::new);
            }
            plan.add(
                    new Field(
                            kind,
                            nullBranch,
                            type.getName(),
                            index,
                            kind == Kind.FIXED ? schema.getFixedSize() : 0,
                            symbols));
            index++;
        }
        return plan;
    }
}
