package io.sluice.config;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Validates one whole file. YAML is composed to nodes rather than loaded to maps because only nodes
 * keep the line of every key. Sections are read first, then references between them.
 */
final class ConfigParser {
    private static final List<String> ROOT_KEYS =
            List.of(
                    "kafka",
                    "storage",
                    "online",
                    "checkpoint",
                    "compact",
                    "catalog",
                    "tables",
                    "feature_views");

    private ConfigParser() {}

    static SluiceConfig parse(
            String yaml,
            String sourceName,
            Path baseDir,
            Function<String, Schema> schemaResolver,
            Map<String, String> env) {
        Problems problems = new Problems(Objects.requireNonNull(sourceName, "sourceName"));
        ParseContext ctx =
                new ParseContext(
                        problems,
                        new EnvSubstitution(env),
                        baseDir.toAbsolutePath().normalize(),
                        Objects.requireNonNull(schemaResolver, "schemaResolver"));
        Node document = compose(yaml, problems);
        if (!(document instanceof MappingNode)) {
            int line = document == null ? 1 : document.getStartMark().getLine() + 1;
            problems.addLine(line, "expected a mapping with kafka, storage and tables at the top");
            problems.throwIfAny();
        }
        YamlMapping root = YamlMapping.of(document, "", ctx, ROOT_KEYS).orElseThrow();
        KafkaConfig kafka = InfraSections.kafka(root);
        StorageConfig storage = InfraSections.storage(root);
        OnlineConfig online = InfraSections.online(root, storage);
        CheckpointConfig checkpoint = InfraSections.checkpoint(root);
        CompactConfig compact = InfraSections.compact(root);
        CatalogConfig catalog = CatalogSection.parse(root, storage);
        Map<String, ParsedTable> tables = tables(root);
        List<FeatureViewConfig> views = featureViews(root, tables);
        problems.throwIfAny();
        return new SluiceConfig(
                kafka,
                storage,
                online,
                checkpoint,
                compact,
                catalog,
                tables.values().stream().map(ParsedTable::config).toList(),
                views);
    }

    /** The document's root node, null if empty; syntax errors are thrown right away. */
    private static Node compose(String yaml, Problems problems) {
        LoaderOptions options = new LoaderOptions();
        // Lets tables share defaults through "<<: *anchor" while keeping node marks.
        options.setMergeOnCompose(true);
        try {
            return new Yaml(options).compose(new StringReader(yaml));
        } catch (YAMLException e) {
            YamlSyntax.report(yaml, e, options, problems);
        }
        problems.throwIfAny();
        throw new AssertionError("unreachable");
    }

    private static Map<String, ParsedTable> tables(YamlMapping root) {
        Map<String, ParsedTable> byName = new LinkedHashMap<>();
        if (!root.has("tables")) {
            root.report("tables", "required");
            return byName;
        }
        List<YamlMapping> items = root.mappings("tables", TableParser.KEYS, true);
        List<ParsedTable> withTopic = new ArrayList<>();
        for (YamlMapping item : items == null ? List.<YamlMapping>of() : items) {
            ParsedTable table = TableParser.parse(item);
            ParsedTable sameName =
                    table.name() == null ? null : byName.putIfAbsent(table.name(), table);
            if (sameName != null) {
                item.report(
                        "name",
                        "duplicate table name '"
                                + table.name()
                                + "' (first at line "
                                + sameName.source().line("name")
                                + ")");
            }
            if (table.topic() != null) {
                String clash = topicClash(table, withTopic);
                if (clash != null) {
                    item.report("topic", clash);
                } else {
                    withTopic.add(table);
                }
            }
        }
        return byName;
    }

    /**
     * Why {@code table}'s topic cannot be used next to the earlier tables' topics, or null. Kafka
     * refuses to create a topic whose name differs from an existing one only in '.' versus '_'
     * (both become '_' in metric names), so such names clash too; and every table also owns its
     * dead-letter topic.
     */
    private static String topicClash(ParsedTable table, List<ParsedTable> earlier) {
        String topic = table.topic();
        String deadLetters = topic + TableConfig.DEAD_LETTER_SUFFIX;
        for (ParsedTable other : earlier) {
            String where =
                    (other.name() != null ? "table '" + other.name() + "'" : other.source().path())
                            + " (line "
                            + other.source().line("topic")
                            + ")";
            String otherDeadLetters = other.topic() + TableConfig.DEAD_LETTER_SUFFIX;
            String sameInKafka = ": Kafka treats '.' and '_' in topic names as the same";
            if (topic.equals(other.topic())) {
                return "topic '" + topic + "' is already read by " + where;
            }
            if (collide(topic, other.topic())) {
                return "topic '"
                        + topic
                        + "' collides with topic '"
                        + other.topic()
                        + "' of "
                        + where
                        + sameInKafka;
            }
            if (collide(topic, otherDeadLetters)) {
                return "topic '"
                        + topic
                        + "' collides with '"
                        + otherDeadLetters
                        + "', the dead-letter topic of "
                        + where
                        + sameInKafka;
            }
            if (collide(deadLetters, other.topic())) {
                return "its dead-letter topic '"
                        + deadLetters
                        + "' collides with topic '"
                        + other.topic()
                        + "' of "
                        + where
                        + sameInKafka;
            }
        }
        return null;
    }

    private static boolean collide(String a, String b) {
        return a.replace('.', '_').equals(b.replace('.', '_'));
    }

    private static List<FeatureViewConfig> featureViews(
            YamlMapping root, Map<String, ParsedTable> tables) {
        List<YamlMapping> items = root.mappings("feature_views", FeatureViewParser.KEYS, false);
        List<FeatureViewConfig> views = new ArrayList<>();
        Map<String, Integer> firstLine = new LinkedHashMap<>();
        for (YamlMapping item : items == null ? List.<YamlMapping>of() : items) {
            FeatureViewConfig view = FeatureViewParser.parse(item, tables);
            views.add(view);
            Integer first =
                    view == null ? null : firstLine.putIfAbsent(view.name(), item.line("name"));
            if (first != null) {
                item.report(
                        "name",
                        "duplicate feature view name '"
                                + view.name()
                                + "' (first at line "
                                + first
                                + ")");
            }
        }
        return views;
    }
}
