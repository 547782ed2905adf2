package io.sluice.config;

import java.util.List;

/**
 * Thrown when {@code sluice.yaml} cannot be used. It carries every problem found, not just the
 * first, because a job that fails once per typo wastes a deploy cycle per typo.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    public ConfigException(List<String> errors) {
        super(String.join("\n", requireNonEmpty(errors)));
        this.errors = List.copyOf(errors);
    }

    /** One entry per problem, each formatted as {@code source:line: key.path: message}. */
    public List<String> errors() {
        return errors;
    }

    private static List<String> requireNonEmpty(List<String> errors) {
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one error");
        }
        return errors;
    }
}
