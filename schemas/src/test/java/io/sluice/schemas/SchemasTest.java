package io.sluice.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class SchemasTest {

    @Test
    void shouldResolveSimpleNames() {
        assertThat(Schemas.names()).containsExactly("AddToCart", "PageView", "Purchase");
        assertThat(Schemas.current("Purchase")).contains(Purchase.getClassSchema());
        assertThat(Schemas.current("Refund")).isEmpty();
    }

    @Test
    void shouldListEachDistinctWriterVersionOnce() {
        assertThat(Schemas.writerSchemas("PageView")).containsExactly(PageView.getClassSchema());
        assertThat(Schemas.writerSchemas("Purchase"))
                .hasSize(2)
                .first()
                .isEqualTo(Purchase.getClassSchema());
    }

    @Test
    void shouldReadV1PurchasesWithTheCurrentSchema() throws IOException {
        Schema v1 = Schemas.released("v1", "Purchase").orElseThrow();
        GenericRecord old = new GenericData.Record(v1);
        old.put("event_id", "e-1");
        old.put("event_time", Instant.parse("2026-11-21T05:00:00Z").toEpochMilli());
        old.put("user_id", "u-1");
        old.put("session_id", "s-1");
        old.put("order_id", "o-1");
        old.put("item_id", "i-1");
        old.put("category", "books");
        old.put("price", 9.5f);
        old.put("quantity", 2);
        old.put("payment_method", "card");
        old.put("device", new GenericData.EnumSymbol(v1.getField("device").schema(), "WEB"));
        old.put("country", "DE");

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(v1).write(old, encoder);
        encoder.flush();
        GenericRecord read =
                new GenericDatumReader<GenericRecord>(v1, Purchase.getClassSchema())
                        .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));

        assertThat(read.get("coupon")).isNull();
        assertThat(read.get("price")).isEqualTo(9.5f);
        assertThat(read.get("device").toString()).isEqualTo("WEB");
    }
}
