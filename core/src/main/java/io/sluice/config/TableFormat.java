package io.sluice.config;

/** Wire format of a topic's values; decides which deserializer the ingest job uses. */
public enum TableFormat {
    JSON,
    AVRO
}
