package io.sluice.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.FeatureRefs;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.features.online.ReadTime;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice get}: an online feature read, as a service sees it. */
@Command(
        name = "get",
        mixinStandardHelpOptions = true,
        description =
                "Read feature values from the online store for some entities, now or at a past"
                        + " time within the views' ttl.")
final class GetCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Option(
            names = "--features",
            required = true,
            split = ",",
            description = "Features as view:feature, comma-separated.")
    List<String> features;

    @Option(
            names = "--entities",
            required = true,
            split = ",",
            description = "Entity keys, comma-separated.")
    List<String> entities;

    @Option(names = "--at", description = "The time to read at, an ISO instant (default: now).")
    String at;

    @Option(
            names = "--json",
            description = "Print JSON: each value with its status and event time.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<FeatureReader.FeatureRef> refs;
        try {
            refs = FeatureRefs.parse(features);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--features: " + e.getMessage());
        }
        long now = System.currentTimeMillis();
        Instant atInstant =
                at == null ? Instant.ofEpochMilli(now) : ReadTime.parse("--at", at, now);
        SluiceConfig cfg = config.load();
        List<ViewDef> views = FeatureRefs.views(cfg);
        List<FeatureReader.Vector> vectors;
        try (OnlineStore store = OnlineStores.open(cfg.online())) {
            try {
                FeatureReader reader = new FeatureReader(store, views, System::currentTimeMillis);
                // A chosen time is answered only as far as the features job has written it.
                vectors =
                        at == null
                                ? reader.read(refs, entities, atInstant)
                                : reader.readAsOf(refs, entities, atInstant);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--features: " + e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(toJson(refs, vectors, atInstant));
        } else {
            for (FeatureReader.Vector v : vectors) {
                out.println(v.entity());
                for (int i = 0; i < refs.size(); i++) {
                    FeatureValue value = v.values().get(i);
                    out.printf(
                            "  %-40s %s  (%s%s)%n",
                            refs.get(i),
                            value.value(),
                            value.status(),
                            value.eventTime() < 0
                                    ? ""
                                    : ", event time " + Instant.ofEpochMilli(value.eventTime()));
                }
            }
        }
        out.flush();
        return 0;
    }

    static String toJson(
            List<FeatureReader.FeatureRef> refs, List<FeatureReader.Vector> vectors, Instant at)
            throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("at", at.toString());
        ArrayNode list = root.putArray("entities");
        for (FeatureReader.Vector v : vectors) {
            ObjectNode entity = list.addObject();
            entity.put("entity", v.entity());
            ObjectNode values = entity.putObject("features");
            for (int i = 0; i < refs.size(); i++) {
                FeatureValue value = v.values().get(i);
                ObjectNode node = values.putObject(refs.get(i).toString());
                if (value.value() instanceof Float f) {
                    // The exact value of the float32, not its shortest decimal: 12.99f prints as
                    // 12.989999771118164, which equals what a double reader of the warehouse's
                    // FLOAT column sees.
                    node.put("value", f.doubleValue());
                } else {
                    node.set("value", mapper.valueToTree(value.value()));
                }
                node.put("status", value.status().name());
                if (value.eventTime() < 0) {
                    node.putNull("event_time");
                } else {
                    node.put("event_time", Instant.ofEpochMilli(value.eventTime()).toString());
                }
            }
        }
        return mapper.writeValueAsString(root);
    }
}
