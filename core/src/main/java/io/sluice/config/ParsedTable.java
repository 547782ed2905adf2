package io.sluice.config;

import org.apache.avro.Schema;

/**
 * A table entry as far as it could be read. Feature views are checked against it even when the
 * table itself has errors, so that one mistake does not hide the next; {@code config} is null then.
 */
record ParsedTable(
        YamlMapping source,
        String name,
        String topic,
        Schema schema,
        String key,
        TableConfig config) {}
