package io.sluice.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.catalog.LakeCatalog;
import io.sluice.config.CatalogType;
import io.sluice.config.Durations;
import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice describe}: the tables, views and features of a config, and the hours of its data.
 */
@Command(
        name = "describe",
        mixinStandardHelpOptions = true,
        description = {
            "Describe the tables (topic, key, buckets, schema) and feature views (entity, source,"
                    + " tile, ttl, and each feature's aggregation, window and type) of a config,"
                    + " and for a file: storage root the hours landed, complete and compacted per"
                    + " table with their row counts.",
            "With a TABLE or VIEW name, only that one, with every hour listed."
        })
final class DescribeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "TABLE|VIEW",
            description = "A table or feature view name from the config (default: all).")
    String name;

    @Option(names = "--json", description = "Print JSON, for scripts.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        SluiceConfig cfg = config.load();
        List<TableConfig> tables = cfg.tables();
        List<FeatureViewConfig> views = cfg.featureViews();
        if (name != null) {
            tables = tables.stream().filter(t -> t.name().equals(name)).toList();
            views = views.stream().filter(v -> v.name().equals(name)).toList();
            if (tables.isEmpty() && views.isEmpty()) {
                throw new IllegalArgumentException(
                        "TABLE|VIEW: no table or view '"
                                + name
                                + "' in "
                                + config
                                + "; tables: "
                                + names(cfg.tables().stream().map(TableConfig::name))
                                + "; views: "
                                + names(cfg.featureViews().stream().map(FeatureViewConfig::name)));
            }
        }
        Map<String, Object> described = describe(cfg, tables, views);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(
                    new ObjectMapper()
                            .enable(SerializationFeature.INDENT_OUTPUT)
                            .writeValueAsString(described));
        } else {
            print(described, name != null, out);
        }
        out.flush();
        return 0;
    }

    /** The description as plain maps and lists, in the order it is printed. */
    static Map<String, Object> describe(
            SluiceConfig cfg, List<TableConfig> tables, List<FeatureViewConfig> views)
            throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("storage_root", cfg.rootUri().toString());
        List<Object> tableList = new ArrayList<>();
        // Describing creates nothing: an embedded catalog's database not made yet has no tables.
        boolean catalogExists =
                cfg.catalog().type() != CatalogType.SQLITE
                        || Files.exists(cfg.catalog().sqlitePath());
        try (LakeCatalog catalog =
                cfg.catalog().isEnabled() && catalogExists ? LakeCatalog.open(cfg) : null) {
            describeTables(cfg, tables, catalog, tableList);
        }
        root.put("tables", tableList);
        List<Object> viewList = new ArrayList<>();
        for (FeatureViewConfig v : views) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("name", v.name());
            view.put("entity", v.entity());
            view.put("source", v.source());
            view.put("tile", Durations.format(v.tile()));
            view.put("ttl", Durations.format(v.ttl()));
            List<Object> features = new ArrayList<>();
            for (FeatureConfig f : v.features()) {
                Map<String, Object> feature = new LinkedHashMap<>();
                feature.put("name", f.name());
                feature.put("agg", f.agg().name().toLowerCase(Locale.ROOT));
                feature.put("field", f.field().orElse(null));
                feature.put("window", Durations.format(f.effectiveWindow()));
                feature.put("window_is_ttl", f.window().isEmpty());
                feature.put("type", f.type().name().toLowerCase(Locale.ROOT));
                features.add(feature);
            }
            view.put("features", features);
            viewList.add(view);
        }
        root.put("views", viewList);
        return root;
    }

    /** The tables' part of {@link #describe}. */
    private static void describeTables(
            SluiceConfig cfg, List<TableConfig> tables, LakeCatalog catalog, List<Object> tableList)
            throws IOException {
        for (TableConfig t : tables) {
            Map<String, Object> table = new LinkedHashMap<>();
            table.put("name", t.name());
            table.put("topic", t.topic());
            table.put("format", t.format().name().toLowerCase(Locale.ROOT));
            table.put("key", t.key());
            table.put("id", t.id());
            table.put("event_time", t.eventTime());
            table.put("buckets", t.buckets());
            table.put("allowed_lateness", Durations.format(t.allowedLateness()));
            table.put("schema", t.schema().getFullName());
            Map<String, String> columns = new LinkedHashMap<>();
            t.schema().getFields().forEach(f -> columns.put(f.name(), typeName(f.schema())));
            table.put("columns", columns);
            table.put("hours", hours(TableHours.scan(cfg, t)));
            table.put("iceberg", TableSnapshots.describe(catalog, t));
            tableList.add(table);
        }
    }

    private static Map<String, Object> hours(List<TableHours> hours) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("landed", hours.stream().filter(h -> h.landedRows() > 0).count());
        summary.put("complete", hours.stream().filter(TableHours::complete).count());
        summary.put("compacted", hours.stream().filter(h -> h.compacted() && !h.stale()).count());
        summary.put("stale", hours.stream().filter(TableHours::stale).count());
        summary.put("landed_rows", hours.stream().mapToLong(TableHours::landedRows).sum());
        summary.put(
                "warehouse_rows",
                hours.stream()
                        .filter(TableHours::compacted)
                        .mapToLong(TableHours::compactedRows)
                        .sum());
        List<Object> list = new ArrayList<>();
        for (TableHours h : hours) {
            Map<String, Object> hour = new LinkedHashMap<>();
            hour.put("partition", h.partition());
            hour.put("landed_rows", h.landedRows());
            hour.put("complete", h.complete());
            hour.put("warehouse_rows", h.compacted() ? h.compactedRows() : null);
            hour.put("stale", h.stale());
            list.add(hour);
        }
        summary.put("list", list);
        return summary;
    }

    /** An Avro field type as people read it: {@code string}, {@code float}, {@code enum ...}. */
    static String typeName(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            List<Schema> branches =
                    schema.getTypes().stream()
                            .filter(s -> s.getType() != Schema.Type.NULL)
                            .toList();
            String inner =
                    branches.size() == 1
                            ? typeName(branches.get(0))
                            : branches.stream()
                                    .map(DescribeCommand::typeName)
                                    .collect(Collectors.joining(" | "));
            return branches.size() < schema.getTypes().size() ? inner + ", nullable" : inner;
        }
        LogicalType logical = schema.getLogicalType();
        if (logical != null) {
            return logical.getName();
        }
        if (schema.getType() == Schema.Type.ENUM) {
            return "enum " + schema.getName() + " " + schema.getEnumSymbols();
        }
        return schema.getType().getName();
    }

    @SuppressWarnings("unchecked")
    private static void print(Map<String, Object> d, boolean everyHour, PrintWriter out) {
        for (Object o : (List<Object>) d.get("tables")) {
            Map<String, Object> t = (Map<String, Object>) o;
            out.printf(
                    "table %s: topic %s (%s), key %s, id %s, event time %s, %d buckets, allowed"
                            + " lateness %s%n",
                    t.get("name"),
                    t.get("topic"),
                    t.get("format"),
                    t.get("key"),
                    t.get("id"),
                    t.get("event_time"),
                    t.get("buckets"),
                    t.get("allowed_lateness"));
            out.printf("  schema %s%n", t.get("schema"));
            ((Map<String, String>) t.get("columns"))
                    .forEach((column, type) -> out.printf("    %-16s %s%n", column, type));
            TableSnapshots.print((Map<String, Object>) t.get("iceberg"), everyHour, out);
            Map<String, Object> h = (Map<String, Object>) t.get("hours");
            if (h == null) {
                out.printf(
                        "  hours: listed for a file: storage root only (%s)%n",
                        d.get("storage_root"));
                continue;
            }
            out.printf(
                    "  hours: %d landed, %d complete, %d compacted, %d stale; rows: %,d landed,"
                            + " %,d in the warehouse%n",
                    h.get("landed"),
                    h.get("complete"),
                    h.get("compacted"),
                    h.get("stale"),
                    h.get("landed_rows"),
                    h.get("warehouse_rows"));
            if (everyHour) {
                for (Object ho : (List<Object>) h.get("list")) {
                    Map<String, Object> hour = (Map<String, Object>) ho;
                    Object rows = hour.get("warehouse_rows");
                    out.printf(
                            "    %s  landed %,8d rows  %-10s  %s%n",
                            hour.get("partition"),
                            hour.get("landed_rows"),
                            (boolean) hour.get("complete") ? "complete" : "open",
                            rows == null
                                    ? "not compacted"
                                    : String.format(
                                            "compacted %,d rows%s",
                                            rows, (boolean) hour.get("stale") ? " (stale)" : ""));
                }
            }
        }
        for (Object o : (List<Object>) d.get("views")) {
            Map<String, Object> v = (Map<String, Object>) o;
            out.printf(
                    "view %s: entity %s, source %s, tile %s, ttl %s%n",
                    v.get("name"), v.get("entity"), v.get("source"), v.get("tile"), v.get("ttl"));
            for (Object fo : (List<Object>) v.get("features")) {
                Map<String, Object> f = (Map<String, Object>) fo;
                String agg =
                        f.get("field") == null
                                ? (String) f.get("agg")
                                : f.get("agg") + "(" + f.get("field") + ")";
                out.printf(
                        "    %-24s %-22s window %-6s%s  %s%n",
                        f.get("name"),
                        agg,
                        f.get("window"),
                        (boolean) f.get("window_is_ttl") ? " (ttl)" : "      ",
                        f.get("type"));
            }
        }
    }

    private static String names(Stream<String> names) {
        return names.collect(Collectors.joining(", "));
    }
}
