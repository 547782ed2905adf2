package io.sluice.features.training;

import org.apache.avro.Schema;

/** The spine schema the training-set tests write: (user_id, event_timestamp, label). */
final class SpineSchemas {

    private SpineSchemas() {}

    /** {@code event_timestamp} a long of Avro logical type {@code logicalType}. */
    static Schema userLabel(String logicalType) {
        return new Schema.Parser()
                .parse(
                        "{\"type\":\"record\",\"name\":\"spine\",\"fields\":["
                                + "{\"name\":\"user_id\",\"type\":\"string\"},"
                                + "{\"name\":\"event_timestamp\",\"type\":{\"type\":"
                                + "\"long\",\"logicalType\":\""
                                + logicalType
                                + "\"}},"
                                + "{\"name\":\"label\",\"type\":\"int\"}]}");
    }
}
