package io.sluice.app;

/**
 * Entry point for Flink application mode ({@code entryClass} of a FlinkDeployment). Unlike {@link
 * Main#main}, it never calls {@code System.exit}, which would take the JobManager down with it; a
 * failing command surfaces as an exception instead.
 */
public final class FlinkEntry {

    private FlinkEntry() {}

    public static void main(String[] args) {
        int code = Main.run(args);
        if (code != 0) {
            throw new IllegalStateException("sluice " + String.join(" ", args) + " exited " + code);
        }
    }
}
