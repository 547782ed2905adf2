package io.sluice.event;

import org.apache.avro.generic.GenericRecord;

/** Turns a record's bytes, in one wire format, into a record of the table's current schema. */
public interface RecordDecoder {

    GenericRecord decode(byte[] bytes) throws InvalidEventException;
}
