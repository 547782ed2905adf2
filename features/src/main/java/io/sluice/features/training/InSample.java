package io.sluice.features.training;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;

/** Keeps the rows of the request's entity sample (of the first view's entities). */
final class InSample extends RichFilterFunction<GenericRecord> {
    private static final long serialVersionUID = 1L;
    private final SpineKeys keys;
    private final Sample sample;
    private final int buckets;
    private transient Sample.Selector selector;

    InSample(TrainingPlan plan) {
        this.keys = new SpineKeys(plan, 0, plan.entityColumns()[0]);
        this.sample = plan.sample.orElseThrow();
        this.buckets = plan.groups.get(0).table().buckets();
    }

    @Override
    public void open(OpenContext context) {
        selector = sample.selector(buckets);
    }

    @Override
    public boolean filter(GenericRecord r) {
        String k = keys.key(r);
        return k != null && selector.selects(k, keys.bucket(k));
    }
}
