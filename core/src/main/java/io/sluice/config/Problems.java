package io.sluice.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Collects validation errors while the whole file is checked, so that the author sees every problem
 * in one run. Errors are reported in line order, which is the order people fix them in.
 */
final class Problems {
    private record Problem(int line, int seq, String text) {}

    private final String source;
    private final List<Problem> problems = new ArrayList<>();

    Problems(String source) {
        this.source = source;
    }

    void add(Node node, String path, String message) {
        // SnakeYAML lines are 0-based; editors are 1-based.
        add(node.getStartMark().getLine() + 1, path, message);
    }

    void add(int line, String path, String message) {
        addLine(line, path + ": " + message);
    }

    /** For problems that belong to the file rather than to a key, such as YAML syntax errors. */
    void addLine(int line, String message) {
        problems.add(new Problem(line, problems.size(), source + ":" + line + ": " + message));
    }

    int count() {
        return problems.size();
    }

    void throwIfAny() {
        if (problems.isEmpty()) {
            return;
        }
        throw new ConfigException(
                problems.stream()
                        .sorted(
                                Comparator.comparingInt(Problem::line)
                                        .thenComparingInt(Problem::seq))
                        .map(Problem::text)
                        .toList());
    }
}
