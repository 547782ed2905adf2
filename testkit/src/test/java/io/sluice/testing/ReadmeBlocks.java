package io.sluice.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The README's examples that tests run: the code blocks after a {@code <!-- checked: KIND -->}
 * line. Plain JDK only, so that a module whose class path has none of the project's libraries
 * (Spark's in {@code interop}) reads them too.
 */
public final class ReadmeBlocks {

    private ReadmeBlocks() {}

    /** The repository's README.md, found from any module's working directory. */
    public static Path readme() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("README.md");
            if (Files.isRegularFile(candidate) && Files.exists(dir.resolve("mvnw"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("README.md not found above the working dir");
    }

    /** The blocks marked {@code <!-- checked: KIND -->}, in README order. */
    public static List<String> blocks(String kind) throws IOException {
        List<String> lines = Files.readAllLines(readme());
        List<String> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("<!-- checked: " + kind + " -->")) {
                continue;
            }
            // The next fenced block, which may be indented in a list item.
            int open = i + 1;
            while (!lines.get(open).strip().startsWith("```")) {
                open++;
            }
            StringBuilder block = new StringBuilder();
            int line = open + 1;
            while (!lines.get(line).strip().startsWith("```")) {
                block.append(lines.get(line++)).append('\n');
            }
            blocks.add(block.toString());
        }
        return blocks;
    }

    /** A script's statements, each ending in {@code ;} at the end of a line. */
    public static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            current.append(line).append('\n');
            if (line.stripTrailing().endsWith(";")) {
                statements.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalArgumentException("text after the last statement: " + current);
        }
        return statements;
    }
}
