package io.sluice.features.training;

import io.sluice.catalog.WarehouseSnapshot;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.agg.WindowReads;
import io.sluice.features.agg.Windows;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One view of a {@link TrainingPlan}: its features, their output columns, its entity and its
 * coverage, shipped to the job's tasks with its {@link TrainingPlan.Group}.
 */
final class PlannedView implements Serializable {
    private static final long serialVersionUID = 1L;

    final ViewDef view;
    final TableConfig table;
    final String entity; // the spine column of its key: the view's entity
    final List<Integer> columns = new ArrayList<>(); // output feature positions
    final List<FeatureDef> features = new ArrayList<>();
    CompleteHours.Coverage coverage;

    /**
     * What the view's table held over the hours the spine's rows can read, when planned: the
     * Iceberg snapshot (or manifests) the job reads the hours' files from ({@link HourFiles}).
     */
    WarehouseSnapshot snapshot;

    /** The hours the spine's rows can read: from the first's, up to the last row's end. */
    long first;

    long last;

    PlannedView(ViewDef view, TableConfig table, String entity) {
        this.view = view;
        this.table = table;
        this.entity = entity;
    }

    /**
     * The first millisecond a row whose time's tail is {@code tail} reads: the start of its longest
     * window, or of its view's retention, which says whether the entity is known ({@link
     * WindowReads#present}).
     */
    long from(long tail) {
        if (read == null) {
            read = new ArrayList<>(features);
            read.add(view.presence());
        }
        return Windows.start(read, tail, view.tileMillis());
    }

    private transient List<FeatureDef> read; // the features and the presence count

    private transient Merges merges;

    /** Its features and presence count grouped by what they merge ({@link Merges}). */
    Merges merges() {
        if (merges == null) {
            merges = new Merges(view, features);
        }
        return merges;
    }

    /** The bucket of {@code key} in the view's table. */
    int bucket(String key) {
        return TrainingPlan.bucket(table, key);
    }

    /**
     * A view's features and its presence count grouped by (partial key, window): the features of a
     * group merge the same tiles into the same partial ({@link WindowReads#partial}), so a row
     * merges it once and takes each feature's value from it, as the online read does.
     */
    static final class Merges {
        /** One feature of each group: what the group's partial is merged for. */
        final List<FeatureDef> merged = new ArrayList<>();

        /** The group of each feature, in the view's feature order. */
        final int[] group;

        /** The presence count's group. */
        final int presence;

        Merges(ViewDef view, List<FeatureDef> features) {
            Map<List<Object>, Integer> groups = new HashMap<>();
            group = new int[features.size()];
            for (int f = 0; f < features.size(); f++) {
                group[f] = groupOf(groups, features.get(f));
            }
            presence = groupOf(groups, view.presence());
        }

        private int groupOf(Map<List<Object>, Integer> groups, FeatureDef f) {
            return groups.computeIfAbsent(
                    List.of(f.partialKey(), f.windowMillis()),
                    k -> {
                        merged.add(f);
                        return merged.size() - 1;
                    });
        }
    }
}
