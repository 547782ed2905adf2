package io.sluice.config;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * Expands {@code ${VAR}} and {@code ${VAR:-default}} in scalar values so that secrets and
 * per-environment endpoints stay out of the committed file. {@code $${X}} yields the literal text
 * {@code ${X}}. As in the shell, {@code :-} also applies when the variable is set but empty.
 */
final class EnvSubstitution {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Map<String, String> env;

    EnvSubstitution(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    /** The value of environment variable {@code name}, or null if it is not set. */
    String variable(String name) {
        return env.get(name);
    }

    /**
     * Returns {@code text} with every reference replaced.
     *
     * @throws IllegalArgumentException with a message fit to follow the key path
     */
    String expand(String text) {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (text.startsWith("${", i)) {
                int end = text.indexOf('}', i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated '${' in value");
                }
                out.append(resolve(text.substring(i + 2, end)));
                i = end + 1;
            } else {
                out.append(text.charAt(i++));
            }
        }
        return out.toString();
    }

    private String resolve(String reference) {
        int sep = reference.indexOf(":-");
        String name = sep < 0 ? reference : reference.substring(0, sep);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "'${"
                            + reference
                            + "}' is not a valid reference (use ${NAME} or ${NAME:-default})");
        }
        String value = env.get(name);
        if (sep >= 0) {
            return value == null || value.isEmpty() ? reference.substring(sep + 2) : value;
        }
        if (value == null) {
            throw new IllegalArgumentException(
                    "environment variable '" + name + "' is not set and has no default");
        }
        return value;
    }
}
