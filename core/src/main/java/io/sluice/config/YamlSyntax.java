package io.sluice.config;

import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.CollectionEndEvent;
import org.yaml.snakeyaml.events.CollectionStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.MappingStartEvent;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.events.SequenceStartEvent;
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * Turns a SnakeYAML syntax error into a problem on the line an editor shows the mistake on, under
 * the key the mistake sits in.
 *
 * <p>SnakeYAML's marks are 0-based, and its problem mark is where the parser noticed, which for an
 * unfinished token (a key without ':', an unclosed quote or bracket) is the next token or the end
 * of the file, often lines later. The start of the unfinished construct, its context mark, is then
 * where the mistake is.
 */
final class YamlSyntax {
    private YamlSyntax() {}

    static void report(String yaml, YAMLException e, LoaderOptions options, Problems problems) {
        int index;
        String message;
        if (e instanceof MarkedYAMLException marked) {
            index = blame(yaml, marked);
            if (index < 0) {
                problems.addLine(1, "invalid YAML: " + marked.getMessage());
                return;
            }
            message = "invalid YAML: " + describe(marked, lineOf(yaml, index));
        } else if (e instanceof ReaderException reader) {
            index = charIndex(yaml, reader.getPosition());
            message = "invalid YAML: " + reader.getMessage();
        } else {
            problems.addLine(1, "invalid YAML: " + e.getMessage());
            return;
        }
        int line = lineOf(yaml, index);
        // The reader refuses a whole buffer at once, before any event: read what precedes it.
        String path =
                e instanceof ReaderException
                        ? pathAt(yaml.substring(0, index), index, options)
                        : pathAt(yaml, index, options);
        if (path.isEmpty()) {
            problems.addLine(line, message);
        } else {
            problems.add(line, path, message);
        }
    }

    /** The char index of the mistake itself rather than of where the parser gave up; or -1. */
    private static int blame(String yaml, MarkedYAMLException e) {
        Mark problem = e.getProblemMark();
        Mark context = e.getContextMark();
        String what = e.getContext() == null ? "" : e.getContext();
        boolean unfinished =
                what.startsWith("while scanning")
                        || what.startsWith("while parsing a flow mapping")
                        || what.startsWith("while parsing a flow sequence");
        if (context != null && (problem == null || unfinished)) {
            return charIndex(yaml, context.getIndex());
        }
        if (problem == null) {
            return -1;
        }
        int index = charIndex(yaml, problem.getIndex());
        if (endOfStream(e)) {
            // Nothing is wrong with the end of the file: what is unfinished is the last thing in
            // it.
            return lastContentBefore(yaml, index);
        }
        return index;
    }

    private static boolean endOfStream(MarkedYAMLException e) {
        String problem = e.getProblem() == null ? "" : e.getProblem();
        return problem.contains("<stream end>") || problem.contains("end of stream");
    }

    /** The SnakeYAML problem, plus its context and where that began when on another line. */
    private static String describe(MarkedYAMLException e, int line) {
        String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
        Mark context = e.getContextMark();
        if (e.getContext() == null) {
            return problem;
        }
        if (context != null && context.getLine() + 1 != line) {
            return problem + " (" + e.getContext() + " at line " + (context.getLine() + 1) + ")";
        }
        return problem + " (" + e.getContext() + ")";
    }

    /** The index of the last character before {@code end} that is not blank or in a comment. */
    private static int lastContentBefore(String yaml, int end) {
        int lineStart = yaml.lastIndexOf('\n', Math.min(end, yaml.length()) - 1) + 1;
        int lineEnd = Math.min(end, yaml.length());
        while (true) {
            String line = yaml.substring(lineStart, lineEnd);
            int hash = line.indexOf('#');
            String content = hash >= 0 ? line.substring(0, hash) : line;
            if (!content.isBlank() || lineStart == 0) {
                return lineStart + content.length() - content.stripLeading().length();
            }
            lineEnd = lineStart - 1;
            lineStart = yaml.lastIndexOf('\n', lineEnd - 1) + 1;
        }
    }

    /** 1-based line of a character index, counting line breaks as SnakeYAML does. */
    private static int lineOf(String yaml, int index) {
        int line = 1;
        int end = Math.min(index, yaml.length());
        for (int i = 0; i < end; i++) {
            char c = yaml.charAt(i);
            if (c == '\n'
                    || (c == '\r' && (i + 1 >= yaml.length() || yaml.charAt(i + 1) != '\n'))) {
                line++;
            }
        }
        return line;
    }

    /** SnakeYAML counts code points; strings index chars. */
    private static int charIndex(String yaml, int codePoints) {
        return yaml.offsetByCodePoints(
                0, Math.min(codePoints, yaml.codePointCount(0, yaml.length())));
    }

    /**
     * The key path the parser was in when it reached {@code index}: the innermost key whose value
     * was being read, or else the innermost mapping or list. Empty at the top level.
     */
    static String pathAt(String yaml, int index, LoaderOptions options) {
        Deque<Frame> open = new ArrayDeque<>();
        try {
            Iterator<Event> events = new Yaml(options).parse(new StringReader(yaml)).iterator();
            while (events.hasNext()) {
                Event event = events.next();
                Mark start = event.getStartMark();
                int at = start == null ? -1 : charIndex(yaml, start.getIndex());
                if (at >= index) {
                    break;
                }
                int end = charIndex(yaml, event.getEndMark().getIndex());
                if (event instanceof ScalarEvent scalar) {
                    started(open.peek());
                    completed(open.peek(), scalar.getValue(), end);
                } else if (event instanceof AliasEvent alias) {
                    started(open.peek());
                    completed(open.peek(), "*" + alias.getAnchor(), end);
                } else if (event instanceof MappingStartEvent
                        || event instanceof SequenceStartEvent) {
                    started(open.peek());
                    boolean block = !((CollectionStartEvent) event).isFlow();
                    open.push(
                            new Frame(
                                    event instanceof MappingStartEvent,
                                    block ? start.getColumn() : -1));
                } else if (event instanceof CollectionEndEvent && !open.isEmpty()) {
                    open.pop();
                    completed(open.peek(), null, end);
                }
            }
        } catch (YAMLException e) {
            // Stopped at the error itself: what has been read so far is the answer.
        }
        // The parser may not have closed the block collections a dedented line leaves yet.
        int column = indentation(yaml, index);
        while (column >= 0 && !open.isEmpty() && open.peek().column > column) {
            open.pop();
            completed(open.peek(), null, -1);
        }
        int line = lineOf(yaml, index);
        StringBuilder path = new StringBuilder();
        Iterator<Frame> outward = open.descendingIterator();
        while (outward.hasNext()) {
            Frame frame = outward.next();
            boolean innermost = !outward.hasNext();
            String key = null;
            if (frame.mapping && frame.awaitingValue) {
                key = frame.key == null ? "?" : frame.key;
            } else if (frame.mapping
                    && frame.key != null
                    && frame.valueEnd >= 0
                    && lineOf(yaml, frame.valueEnd) == line) {
                // The mistake follows a value on its line, e.g. "key: value: more".
                key = frame.key;
            } else if (!frame.mapping && !innermost && frame.items > 0) {
                path.append('[').append(frame.items - 1).append(']');
            }
            if (key != null) {
                path.append(path.length() > 0 ? "." : "").append(key);
            }
        }
        return path.toString();
    }

    /**
     * The column of {@code index} if only spaces precede it on its line, else -1: text before it,
     * or a tab in the indentation, says nothing about which block it belongs to.
     */
    private static int indentation(String yaml, int index) {
        int lineStart = yaml.lastIndexOf('\n', Math.min(index, yaml.length()) - 1) + 1;
        for (int i = lineStart; i < index; i++) {
            if (yaml.charAt(i) != ' ') {
                return -1;
            }
        }
        boolean tab = index < yaml.length() && yaml.charAt(index) == '\t';
        return tab ? -1 : index - lineStart;
    }

    private static void started(Frame parent) {
        if (parent != null && !parent.mapping) {
            parent.items++;
        }
    }

    /** A node ended inside {@code parent}: a mapping's key (then its value follows) or a value. */
    private static void completed(Frame parent, String scalar, int end) {
        if (parent == null || !parent.mapping) {
            return;
        }
        if (parent.awaitingValue) {
            parent.awaitingValue = false;
            parent.valueEnd = end;
        } else {
            parent.key = scalar;
            parent.awaitingValue = true;
        }
    }

    private static final class Frame {
        final boolean mapping;
        String key;
        boolean awaitingValue;
        int items;
        int valueEnd = -1;

        /** The column of a block collection's first entry; -1 for a flow collection. */
        final int column;

        Frame(boolean mapping, int column) {
            this.mapping = mapping;
            this.column = column;
        }
    }
}
