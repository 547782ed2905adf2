package io.sluice.serving;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureRefs;
import java.util.List;

/**
 * The feature views a server serves: the library's definitions, which the reader evaluates, and the
 * configured ones, which name each view's entity and each feature's window as written.
 */
public record Catalog(List<FeatureViewConfig> configs, List<ViewDef> views) {

    public Catalog {
        configs = List.copyOf(configs);
        views = List.copyOf(views);
    }

    public static Catalog of(SluiceConfig config) {
        return new Catalog(config.featureViews(), FeatureRefs.views(config));
    }

    /** The entity key field of {@code view}; the view must exist. */
    public String entityOf(String view) {
        for (FeatureViewConfig v : configs) {
            if (v.name().equals(view)) {
                return v.entity();
            }
        }
        throw new java.util.NoSuchElementException("no feature view " + view);
    }

    /** {@code GET /features}: every view with its entity, and every feature's definition. */
    public ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        var list = root.putArray("feature_views");
        for (FeatureViewConfig v : configs) {
            ObjectNode view = list.addObject();
            view.put("name", v.name());
            view.put("entity", v.entity());
            view.put("source", v.source());
            view.put("tile", v.tile().toString());
            view.put("ttl", v.ttl().toString());
            var features = view.putArray("features");
            for (FeatureConfig f : v.features()) {
                ObjectNode feature = features.addObject();
                feature.put("name", f.name());
                feature.put("ref", v.name() + ":" + f.name());
                feature.put("agg", f.agg().name().toLowerCase(java.util.Locale.ROOT));
                if (f.field().isPresent()) {
                    feature.put("field", f.field().get());
                }
                feature.put("window", f.effectiveWindow().toString());
                feature.put("type", f.type().name().toLowerCase(java.util.Locale.ROOT));
            }
        }
        return root;
    }
}
