package io.sluice.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.event.Deduplicator.Kept;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class KeptSerializerTest {

    private static final TypeSerializer<Kept> POJO =
            TypeInformation.of(Kept.class).createSerializer(new SerializerConfigImpl());

    private static final List<Kept> VALUES =
            Arrays.asList(
                    new Kept(1_763_899_200_123L, new byte[] {1, 2, 3, -1}, null),
                    new Kept(-5L, new byte[32], "user-\u00e9-\u4e2d-" + "x".repeat(200)),
                    new Kept(0L, new byte[0], ""),
                    new Kept(Long.MAX_VALUE, null, "k"),
                    null);

    private static byte[] bytes(TypeSerializer<Kept> serializer, Kept kept) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(8);
        serializer.serialize(kept, out);
        return out.getCopyOfBuffer();
    }

    @Test
    void writesTheBytesOfFlinksPojoSerializerAndReadsThemBack() throws Exception {
        assertThat(POJO).isInstanceOf(PojoSerializer.class);
        KeptSerializer serializer = new KeptSerializer();
        for (Kept kept : VALUES) {
            byte[] ours = bytes(serializer, kept);
            assertThat(ours).as(describe(kept)).isEqualTo(bytes(POJO, kept));
            Kept back = serializer.deserialize(new DataInputDeserializer(ours));
            assertThat(describe(back)).isEqualTo(describe(kept));
            DataOutputSerializer copied = new DataOutputSerializer(8);
            serializer.copy(new DataInputDeserializer(ours), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(ours);
        }
    }

    @Test
    void isCompatibleAsIsWithThePojoSerializersSnapshotOfKeptOnly() {
        TypeSerializerSnapshot<Kept> ours = new KeptSerializer().snapshotConfiguration();
        assertThat(ours.resolveSchemaCompatibility(POJO.snapshotConfiguration()).isCompatibleAsIs())
                .isTrue();
        assertThat(ours.resolveSchemaCompatibility(ours).isCompatibleAsIs()).isTrue();
        @SuppressWarnings("unchecked")
        TypeSerializerSnapshot<Kept> other =
                (TypeSerializerSnapshot<Kept>)
                        (TypeSerializerSnapshot<?>)
                                TypeInformation.of(DeadLetter.class)
                                        .createSerializer(new SerializerConfigImpl())
                                        .snapshotConfiguration();
        assertThat(ours.resolveSchemaCompatibility(other).isIncompatible()).isTrue();
    }

    /**
     * A snapshot of the de-duplication state as Sluice wrote it before this serializer (the same
     * state, its values in Flink's POJO serializer) restores into the features job's {@link
     * Deduplicator}: the remembered ids still stop their repeats, and a superseded copy is still
     * retracted under the entity key it was kept with.
     */
    @Test
    void restoresTheStateThePojoSerializerWrote() throws Exception {
        Event a = new Event("a", "u-1", 10, new byte[] {1});
        Event b = new Event("b", "u-\u00e9", 20, new byte[] {2});
        OperatorSubtaskState old;
        try (var h = harness(new PojoKept())) {
            h.open();
            h.processElement(new StreamRecord<>(a, 10));
            h.processElement(new StreamRecord<>(b, 20));
            old = h.snapshot(1L, 1L);
        }
        try (var h = harness(Deduplicator.withRetractions(Duration.ofHours(1)))) {
            h.initializeState(old);
            h.open();
            h.processElement(new StreamRecord<>(a, 10));
            // b again, earlier in the same hour: it beats the kept copy, which is retracted.
            Event earlierB = new Event("b", "u-2", 15, new byte[] {3});
            h.processElement(new StreamRecord<>(earlierB, 15));
            h.processElement(new StreamRecord<>(new Event("c", "u-3", 30, new byte[] {4}), 30));
            List<Event> out = h.extractOutputValues();
            assertThat(out)
                    .extracting(e -> e.id + "/" + e.key + "/" + e.eventTime + "/" + e.retraction)
                    .containsExactly("b/u-\u00e9/20/true", "b/u-2/15/false", "c/u-3/30/false");
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Event, Event> harness(
            KeyedProcessFunction<String, Event, Event> function) throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(function),
                (Event e) -> DuplicateRule.unit(e),
                StateKeyTypeInfo.INSTANCE);
    }

    /** The de-duplication state as it was kept before {@link KeptSerializer}: each id's copy. */
    private static final class PojoKept extends KeyedProcessFunction<String, Event, Event> {
        private transient ValueState<Kept> kept;

        @Override
        public void open(OpenContext openContext) {
            ValueStateDescriptor<Kept> descriptor =
                    new ValueStateDescriptor<>("kept", TypeInformation.of(Kept.class));
            descriptor.enableTimeToLive(
                    StateTtlConfig.newBuilder(Duration.ofHours(1))
                            .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                            .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                            .cleanupIncrementally(1, false)
                            .build());
            kept = getRuntimeContext().getState(descriptor);
        }

        @Override
        public void processElement(Event event, Context ctx, Collector<Event> out)
                throws Exception {
            byte[] digest = DuplicateRule.digest(DuplicateRule.sha256(), event.payload);
            kept.update(new Kept(event.eventTime, digest, event.key));
        }
    }

    private static String describe(Kept kept) {
        return kept == null
                ? "null"
                : kept.eventTime + "/" + Arrays.toString(kept.digest) + "/" + kept.key;
    }
}
