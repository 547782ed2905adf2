package io.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.yaml.snakeyaml.DumperOptions.FlowStyle;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads one YAML mapping key by key. Every accessor reports problems against the key's path and
 * line, and construction reports keys nobody declared, because a misspelt optional key would
 * otherwise be silently replaced by its default.
 *
 * <p>Accessors return {@code null} for a value that was present but invalid: the problem is already
 * recorded, and the caller only needs to skip checks that depend on it.
 */
final class YamlMapping {
    private final MappingNode node;
    private final String path;
    private final ParseContext ctx;
    private final Map<String, NodeTuple> entries = new LinkedHashMap<>();

    private YamlMapping(MappingNode node, String path, ParseContext ctx) {
        this.node = node;
        this.path = path;
        this.ctx = ctx;
    }

    /** Wraps {@code node} if it is a mapping; otherwise reports that and returns empty. */
    static Optional<YamlMapping> of(
            Node node, String path, ParseContext ctx, List<String> allowedKeys) {
        if (!(node instanceof MappingNode mapping)) {
            ctx.problems().add(node, path, "must be a mapping, got " + describe(node));
            return Optional.empty();
        }
        YamlMapping result = new YamlMapping(mapping, path, ctx);
        result.index(allowedKeys);
        return Optional.of(result);
    }

    private void index(List<String> allowedKeys) {
        for (NodeTuple tuple : node.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
                ctx.problems().add(tuple.getKeyNode(), where(), "keys must be plain strings");
                continue;
            }
            String key = keyNode.getValue();
            NodeTuple first = entries.putIfAbsent(key, tuple);
            if (first != null) {
                ctx.problems()
                        .add(
                                keyNode,
                                child(key),
                                "duplicate key (first at line "
                                        + (first.getKeyNode().getStartMark().getLine() + 1)
                                        + ")");
            } else if (!allowedKeys.contains(key)) {
                ctx.problems().add(keyNode, child(key), "unknown key " + hint(key, allowedKeys));
            }
        }
    }

    private static String hint(String key, List<String> allowedKeys) {
        String guess = Names.closest(key, allowedKeys);
        return guess != null
                ? "(did you mean '" + guess + "'?)"
                : "(expected one of: " + String.join(", ", allowedKeys) + ")";
    }

    String path() {
        return path;
    }

    /** The path for messages about the mapping itself; the top level has an empty path. */
    private String where() {
        return path.isEmpty() ? "(top level)" : path;
    }

    ParseContext ctx() {
        return ctx;
    }

    String child(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** True if the key is present with a non-null value; {@code key:} alone means "default". */
    boolean has(String key) {
        NodeTuple tuple = entries.get(key);
        return tuple != null && !isNull(tuple.getValueNode());
    }

    /** Line of the key's value, or of the key or mapping when there is no value to point at. */
    int line(String key) {
        NodeTuple tuple = entries.get(key);
        if (tuple == null) {
            return node.getStartMark().getLine() + 1;
        }
        return line(tuple);
    }

    private static int line(NodeTuple tuple) {
        Node at = isNull(tuple.getValueNode()) ? tuple.getKeyNode() : tuple.getValueNode();
        return at.getStartMark().getLine() + 1;
    }

    /** Records a problem with the value of {@code key}. */
    void report(String key, String message) {
        ctx.problems().add(line(key), child(key), message);
    }

    /**
     * {@code text} as an {@code http://} or {@code https://} URI with a host, or null if it is not
     * one (the caller reports it, naming what the key must be).
     */
    static URI httpUri(String text) {
        try {
            URI uri = new URI(text);
            boolean http = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
            return http && uri.getHost() != null ? uri : null;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    // ---- scalars -----------------------------------------------------------------------------

    String requiredString(String key) {
        if (!has(key)) {
            report(key, "required");
            return null;
        }
        return optionalString(key, null);
    }

    String optionalString(String key, String defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String text = text(key);
        if (text != null && text.isBlank()) {
            report(key, "must not be empty");
            return null;
        }
        return text;
    }

    Integer requiredInt(String key, int min, int max) {
        if (!has(key)) {
            report(key, "required");
            return null;
        }
        return optionalInt(key, min, max, 0);
    }

    Integer optionalInt(String key, int min, int max, int defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String text = text(key);
        if (text == null) {
            return null;
        }
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            String kind = min >= 1 ? "a positive integer" : "an integer";
            report(key, "must be " + kind + ", got '" + text + "'");
            return null;
        }
        if (value < min || value > max) {
            report(key, "must be between " + min + " and " + max + ", got " + value);
            return null;
        }
        return value;
    }

    /** A required duration; {@code allowZero} is false for intervals that must make progress. */
    Duration requiredDuration(String key, boolean allowZero) {
        if (!has(key)) {
            report(key, "required");
            return null;
        }
        return optionalDuration(key, allowZero, Duration.ZERO);
    }

    Duration optionalDuration(String key, boolean allowZero, Duration defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String text = text(key);
        if (text == null) {
            return null;
        }
        try {
            Duration value = Durations.parse(text);
            if (value.isZero() && !allowZero) {
                report(key, "must be positive, got " + text);
                return null;
            }
            return value;
        } catch (IllegalArgumentException e) {
            report(key, e.getMessage());
            return null;
        }
    }

    Boolean optionalBoolean(String key, boolean defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String text = text(key);
        if (text == null) {
            return null;
        }
        // YAML 1.1 also reads yes/no/on/off as booleans; we refuse them to avoid the Norway
        // problem.
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> {
                report(key, "must be true or false, got '" + text + "'");
                yield null;
            }
        };
    }

    /** A choice among an enum's constants, written in lower case in the file. */
    <E extends Enum<E>> E requiredChoice(String key, Class<E> type) {
        if (!has(key)) {
            report(key, "required");
            return null;
        }
        return optionalChoice(key, type, null);
    }

    <E extends Enum<E>> E optionalChoice(String key, Class<E> type, E defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String text = text(key);
        if (text == null) {
            return null;
        }
        for (E constant : type.getEnumConstants()) {
            if (Names.lower(constant).equals(text)) {
                return constant;
            }
        }
        String choices =
                Stream.of(type.getEnumConstants())
                        .map(Names::lower)
                        .collect(Collectors.joining(", "));
        report(key, "must be one of " + choices + ", got '" + text + "'");
        return null;
    }

    /** The scalar text of a present key after env substitution, or null (reported) if invalid. */
    private String text(String key) {
        return scalar(entries.get(key).getValueNode(), child(key));
    }

    private String scalar(Node value, String valuePath) {
        if (!(value instanceof ScalarNode scalar)) {
            ctx.problems().add(value, valuePath, "must be a single value, got " + describe(value));
            return null;
        }
        try {
            return ctx.env().expand(scalar.getValue());
        } catch (IllegalArgumentException e) {
            ctx.problems().add(value, valuePath, e.getMessage());
            return null;
        }
    }

    // ---- collections -------------------------------------------------------------------------

    /**
     * A nested section. An absent section reads as an empty mapping so that its defaults apply
     * through the same code path; null means present but not a mapping (reported).
     */
    YamlMapping section(String key, List<String> allowedKeys) {
        if (!has(key)) {
            NodeTuple tuple = entries.get(key);
            Node at = tuple != null ? tuple.getKeyNode() : node;
            MappingNode empty =
                    new MappingNode(
                            Tag.MAP,
                            true,
                            List.of(),
                            at.getStartMark(),
                            at.getEndMark(),
                            FlowStyle.BLOCK);
            return new YamlMapping(empty, child(key), ctx);
        }
        return of(entries.get(key).getValueNode(), child(key), ctx, allowedKeys).orElse(null);
    }

    /**
     * The items of a list of mappings, each with its {@code key[i]} path. Absent reads as empty;
     * null means present but not a list (reported). Items that are not mappings are reported and
     * left out. An empty list is reported when {@code nonEmpty}.
     */
    List<YamlMapping> mappings(String key, List<String> allowedItemKeys, boolean nonEmpty) {
        if (!has(key)) {
            return List.of();
        }
        Node value = entries.get(key).getValueNode();
        if (!(value instanceof SequenceNode sequence)) {
            report(key, "must be a list, got " + describe(value));
            return null;
        }
        List<YamlMapping> items = new ArrayList<>();
        List<Node> nodes = sequence.getValue();
        if (nodes.isEmpty() && nonEmpty) {
            report(key, "must not be empty");
        }
        for (int i = 0; i < nodes.size(); i++) {
            of(nodes.get(i), child(key) + "[" + i + "]", ctx, allowedItemKeys)
                    .ifPresent(items::add);
        }
        return items;
    }

    /**
     * A free-form string-to-string mapping, in file order; null if invalid (reported). Entries
     * named in {@code refused} are reported with the given reason.
     */
    Map<String, String> stringMap(String key, Map<String, String> refused) {
        if (!has(key)) {
            return Map.of();
        }
        Node value = entries.get(key).getValueNode();
        if (!(value instanceof MappingNode mapping)) {
            report(key, "must be a mapping, got " + describe(value));
            return null;
        }
        Map<String, String> result = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        boolean valid = true;
        for (NodeTuple tuple : mapping.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
                ctx.problems().add(tuple.getKeyNode(), child(key), "keys must be plain strings");
                valid = false;
                continue;
            }
            String entryPath = child(key) + "." + keyNode.getValue();
            if (!seen.add(keyNode.getValue())) {
                ctx.problems().add(keyNode, entryPath, "duplicate key");
                valid = false;
                continue;
            }
            if (refused.containsKey(keyNode.getValue())) {
                ctx.problems().add(keyNode, entryPath, refused.get(keyNode.getValue()));
                valid = false;
                continue;
            }
            if (isNull(tuple.getValueNode())) {
                ctx.problems().add(keyNode, entryPath, "must have a value");
                valid = false;
                continue;
            }
            String text = scalar(tuple.getValueNode(), entryPath);
            if (text == null) {
                valid = false;
                continue;
            }
            result.put(keyNode.getValue(), text);
        }
        return valid ? result : null;
    }

    private static boolean isNull(Node node) {
        return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
    }

    private static String describe(Node node) {
        if (node instanceof ScalarNode scalar) {
            return "'" + scalar.getValue() + "'";
        }
        return node instanceof SequenceNode ? "a list" : "a mapping";
    }
}
