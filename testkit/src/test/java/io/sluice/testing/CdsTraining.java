package io.sluice.testing;

import java.nio.file.Path;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * What the child JVMs of the tests have in common, run once to train their class-data archive
 * ({@link SharedClasses}): a local Flink job with keyed state, checkpoints and a file sink.
 */
public final class CdsTraining {

    private CdsTraining() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(2, new Configuration());
        env.enableCheckpointing(100);
        env.fromSequence(0, 50_000)
                .keyBy(i -> i % 16)
                .process(new Count())
                .sinkTo(
                        FileSink.forRowFormat(
                                        new org.apache.flink.core.fs.Path(Path.of(args[0]).toUri()),
                                        new SimpleStringEncoder<String>())
                                .build());
        env.execute("cds-training");
    }

    private static final class Count extends KeyedProcessFunction<Long, Long, String> {
        private transient ValueState<Long> count;

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
        }

        @Override
        public void processElement(Long value, Context ctx, Collector<String> out)
                throws Exception {
            long n = count.value() == null ? 1 : count.value() + 1;
            count.update(n);
            if (n % 1_000 == 0) {
                out.collect(ctx.getCurrentKey() + "," + n);
            }
        }
    }
}
