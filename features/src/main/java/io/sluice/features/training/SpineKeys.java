package io.sluice.features.training;

import java.io.Serializable;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/** How a pass reads a row's key, bucket, time and position. */
final class SpineKeys implements Serializable {
    private static final long serialVersionUID = 1L;
    private final PlannedView first;
    private final int entity;
    private final int time;
    private final int row;
    private final String spine;
    private transient Schema.Field timeField;

    SpineKeys(TrainingPlan plan, int group, int entityColumn) {
        Schema spine = new Schema.Parser().parse(plan.spineSchema);
        this.first = plan.groups.get(group).views().get(0);
        this.entity = entityColumn;
        this.time = plan.timeColumn;
        this.spine = plan.spineSchema;
        this.row = spine.getFields().size() + 2 * plan.featureCount;
    }

    String key(GenericRecord r) {
        return Spine.keyOrNull(r.get(entity));
    }

    int bucket(String key) {
        return first.bucket(key);
    }

    long row(GenericRecord r) {
        return (Long) r.get(row);
    }

    Instant time(GenericRecord r) {
        if (timeField == null) {
            timeField = new Schema.Parser().parse(spine).getFields().get(time);
        }
        return Spine.time(r.get(time), timeField, row(r));
    }

    long tail(GenericRecord r) {
        return TrainingPlan.tail(time(r));
    }
}
