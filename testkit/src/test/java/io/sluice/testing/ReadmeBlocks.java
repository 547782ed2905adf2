package io.sluice.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The README's parts that tests run or assert: the code blocks after a {@code <!-- checked: KIND
 * -->} line, and its tables. Plain JDK only, so that a module whose class path has none of the
 * project's libraries (Spark's in {@code interop}) reads them too.
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

    /**
     * The rows of the first table under the heading {@code heading} (its text after the {@code
     * #}s), each keyed by the header's cells; {@code \|} in a cell is a {@code |}.
     */
    public static List<Map<String, String>> table(String heading) throws IOException {
        List<String> lines = Files.readAllLines(readme());
        int at = 0;
        while (!lines.get(at).matches("#+ " + Pattern.quote(heading))) {
            at++;
        }
        while (!lines.get(at).startsWith("|")) {
            at++;
        }
        List<String> header = cells(lines.get(at));
        List<Map<String, String>> rows = new ArrayList<>();
        // Past the header and its |---| line, up to the first line that is not a row.
        for (int i = at + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            List<String> cells = cells(lines.get(i));
            if (cells.size() != header.size()) {
                throw new IllegalArgumentException(
                        "README line "
                                + (i + 1)
                                + " has "
                                + cells.size()
                                + " cells, not "
                                + header.size());
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < header.size(); c++) {
                row.put(header.get(c), cells.get(c));
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<String> cells(String line) {
        String row = line.strip();
        List<String> cells = new ArrayList<>();
        for (String cell : row.substring(1, row.length() - 1).split("(?<!\\\\)\\|", -1)) {
            cells.add(cell.strip().replace("\\|", "|"));
        }
        return cells;
    }
}
