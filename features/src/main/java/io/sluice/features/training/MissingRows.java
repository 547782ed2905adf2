package io.sluice.features.training;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many rows of a view miss one hour the warehouse does not hold whole, and the first few of
 * them in spine order: what the training-set job's subtasks report through an accumulator (as text)
 * and a refusal names.
 */
record MissingRows(String view, long hour, long rows, List<String[]> examples) {

    /** The accumulator's text of one example: view, hour, row, entity, time. */
    static String text(String view, long hour, long row, String entity, Instant time) {
        return String.join(
                "\t", view, Long.toString(hour), Long.toString(row), entity, time.toString());
    }

    /** Merges the examples and counts the subtasks reported, by (view, hour). */
    static List<MissingRows> merge(List<String> texts) {
        Map<String, List<String[]>> examples = new TreeMap<>();
        Map<String, Long> counts = new HashMap<>();
        for (String t : texts) {
            String[] f = t.split("\t", -1);
            String group = f[0] + "\t" + f[1];
            if (f[2].isEmpty()) { // a count: view, hour, "", n
                counts.merge(group, Long.parseLong(f[3]), Long::sum);
            } else {
                examples.computeIfAbsent(group, g -> new ArrayList<>()).add(f);
            }
        }
        List<MissingRows> out = new ArrayList<>();
        counts.forEach(
                (group, n) -> {
                    String[] g = group.split("\t");
                    List<String[]> ex = new ArrayList<>(examples.getOrDefault(group, List.of()));
                    ex.sort((a, b) -> Long.compare(Long.parseLong(a[2]), Long.parseLong(b[2])));
                    out.add(
                            new MissingRows(
                                    g[0],
                                    Long.parseLong(g[1]),
                                    n,
                                    List.copyOf(
                                            ex.subList(
                                                    0,
                                                    Math.min(
                                                            PointInTimeFunction.EXAMPLES,
                                                            ex.size())))));
                });
        out.sort(
                (a, b) ->
                        a.hour != b.hour ? Long.compare(a.hour, b.hour) : a.view.compareTo(b.view));
        return out;
    }
}
