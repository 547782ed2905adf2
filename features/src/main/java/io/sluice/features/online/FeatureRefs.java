package io.sluice.features.online;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader.FeatureRef;
import java.util.ArrayList;
import java.util.List;

/**
 * Where {@code view:feature} references are parsed and resolved against the configured views, for
 * every caller: the read client ({@code sluice get}), the training-set builder and the check. An
 * unknown view or feature is refused with one message, which lists what exists.
 */
public final class FeatureRefs {

    private FeatureRefs() {}

    /** A reference resolved to its view and feature definition. */
    public record Resolved(FeatureRef ref, ViewDef view, FeatureDef feature) {}

    /** The configured feature views, as the library defines them, in configuration order. */
    public static List<ViewDef> views(SluiceConfig config) {
        List<ViewDef> views = new ArrayList<>();
        for (var v : config.featureViews()) {
            views.add(ViewDef.of(v, config.table(v.source()).orElseThrow()));
        }
        return views;
    }

    /**
     * Parses {@code view:feature} texts (surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the first that is not a reference
     */
    public static List<FeatureRef> parse(List<String> texts) {
        List<FeatureRef> refs = new ArrayList<>(texts.size());
        for (String text : texts) {
            refs.add(FeatureRef.parse(text.strip()));
        }
        return refs;
    }

    /** Every feature of {@code view}, in its declared order. */
    public static List<FeatureRef> all(ViewDef view) {
        return view.features().stream().map(f -> new FeatureRef(view.name(), f.name())).toList();
    }

    /**
     * Resolves each reference against {@code views}.
     *
     * @throws IllegalArgumentException naming the unknown view (and the views there are) or the
     *     unknown feature (and the view's features)
     */
    public static List<Resolved> resolve(List<ViewDef> views, List<FeatureRef> refs) {
        List<Resolved> resolved = new ArrayList<>(refs.size());
        for (FeatureRef ref : refs) {
            // A loop, not a stream: the feature server resolves every request's references.
            ViewDef view = null;
            for (int i = 0; i < views.size() && view == null; i++) {
                view = views.get(i).name().equals(ref.view()) ? views.get(i) : null;
            }
            if (view == null) {
                throw new IllegalArgumentException(
                        String.format(
                                "unknown feature view '%s' in %s; views: %s",
                                ref.view(), ref, names(views)));
            }
            FeatureDef def = view.feature(ref.feature());
            if (def == null) {
                throw new IllegalArgumentException(
                        String.format(
                                "view '%s' has no feature '%s'; its features: %s",
                                view.name(),
                                ref.feature(),
                                String.join(
                                        ", ",
                                        view.features().stream().map(FeatureDef::name).toList())));
            }
            resolved.add(new Resolved(ref, view, def));
        }
        return resolved;
    }

    private static String names(List<ViewDef> views) {
        return String.join(", ", views.stream().map(ViewDef::name).toList());
    }
}
