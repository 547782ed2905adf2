package io.sluice.config;

import java.util.Collection;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Name rules and spelling helpers shared by all sections. Table and view names become directory
 * names and column names downstream, so the pattern admits nothing that could escape a path.
 */
final class Names {
    static final Pattern IDENTIFIER = Pattern.compile("[a-z][a-z0-9_]{0,62}");
    static final String IDENTIFIER_RULE = "must match ^[a-z][a-z0-9_]{0,62}$";

    private Names() {}

    static boolean isIdentifier(String s) {
        return IDENTIFIER.matcher(s).matches();
    }

    /** How enum constants are spelled in the file and in messages. */
    static String lower(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /** The candidate closest to {@code typo}, or null if none is plausibly what was meant. */
    static String closest(String typo, Collection<String> candidates) {
        String best = null;
        int bestDistance = typo.length() <= 4 ? 1 : 2;
        for (String candidate : candidates) {
            int d = distance(typo, candidate);
            if (d <= bestDistance) {
                best = candidate;
                bestDistance = d - 1;
            }
        }
        return best;
    }

    /** Levenshtein distance; keys are short, so the plain O(n*m) table is fine. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
