package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class NullableTest {

    private static final Schema NULL = Schema.create(Schema.Type.NULL);
    private static final Schema STRING = Schema.create(Schema.Type.STRING);
    private static final Schema MILLIS =
            LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));

    @Test
    void seesThroughAUnionOfNullAndOneTypeInEitherOrder() {
        assertThat(Nullable.valueType(Schema.createUnion(NULL, STRING))).isSameAs(STRING);
        assertThat(Nullable.valueType(Schema.createUnion(MILLIS, NULL))).isSameAs(MILLIS);
    }

    @Test
    void keepsEverythingElseAsItIs() {
        assertThat(Nullable.valueType(STRING)).isSameAs(STRING);
        Schema several = Schema.createUnion(NULL, STRING, MILLIS);
        assertThat(Nullable.valueType(several)).isSameAs(several);
        Schema noValue = Schema.createUnion(NULL);
        assertThat(Nullable.valueType(noValue)).isSameAs(noValue);
    }
}
