package io.sluice.app;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Progress of long work, shared by every command that has some: counts done of a total, with a rate
 * and an estimate of the time left.
 *
 * <p>On a terminal the line is redrawn in place ({@code \r}) at most twice a second. When output is
 * not a terminal (a pipe, a log file, a test) it stays quiet and line-oriented: one plain line at
 * most every 30 seconds, so a long run in a CI log still shows it is alive, and nothing at the end
 * (the command's own report follows).
 */
public final class Progress implements AutoCloseable {

    static final Duration TERMINAL_EVERY = Duration.ofMillis(500);
    static final Duration PLAIN_EVERY = Duration.ofSeconds(30);

    private final String label;
    private final String unit;
    private final long total;
    private final PrintWriter out;
    private final boolean terminal;
    private final LongSupplier nanos;
    private final long started;
    private long done;
    private long printed;
    private boolean drawn;
    private boolean redraw;

    /**
     * @param total the count the work ends at, or 0 when it is not known
     * @param terminal whether {@code out} is a terminal (redraw in place)
     * @param nanos the clock, {@link System#nanoTime} outside tests
     */
    Progress(
            String label,
            String unit,
            long total,
            PrintWriter out,
            boolean terminal,
            LongSupplier nanos) {
        this.label = label;
        this.unit = unit;
        this.total = Math.max(0, total);
        this.out = out;
        this.terminal = terminal;
        this.nanos = nanos;
        this.started = nanos.getAsLong();
        this.printed = started;
    }

    /** Progress on {@code out}, a terminal when the JVM has a console. */
    public static Progress start(String label, String unit, long total, PrintWriter out) {
        return new Progress(label, unit, total, out, System.console() != null, System::nanoTime);
    }

    /** Progress on {@code out}, a terminal when the JVM has a console. */
    public static Progress start(String label, String unit, long total, PrintStream out) {
        return start(label, unit, total, new PrintWriter(out, true));
    }

    /** Adds {@code n} to the count done. */
    public synchronized void advance(long n) {
        update(done + n);
    }

    /** Sets the count done, and shows it if it is time to. */
    public synchronized void update(long doneNow) {
        done = doneNow;
        long now = nanos.getAsLong();
        Duration every = terminal ? TERMINAL_EVERY : PLAIN_EVERY;
        if (redraw || now - printed >= every.toNanos()) {
            printed = now;
            redraw = false;
            if (terminal) {
                out.print("\r" + line(now) + "\033[K");
                drawn = true;
            } else {
                out.println(line(now));
            }
            out.flush();
        }
    }

    /** Prints a line of the command's own output above the progress line. */
    public synchronized void println(String line) {
        if (drawn) {
            out.print("\r\033[K");
            drawn = false;
            redraw = true;
        }
        out.println(line);
        out.flush();
    }

    /**
     * Waits for {@code work}, updating the count from {@code doneSoFar} between waits; returns its
     * result or throws its failure. The waits are on the future itself, so it returns as soon as
     * the work ends.
     */
    <T> T await(Future<T> work, LongSupplier doneSoFar) throws Exception {
        long waitMillis = (terminal ? TERMINAL_EVERY : PLAIN_EVERY).toMillis();
        while (true) {
            try {
                return work.get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillRunning) {
                update(doneSoFar.getAsLong());
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }

    /** The progress line as of {@code now}, without the redraw codes. */
    synchronized String line(long now) {
        double seconds = Math.max(1e-9, (now - started) / 1e9);
        double rate = done / seconds;
        StringBuilder line = new StringBuilder(label).append(": ");
        line.append(String.format("%,d", done));
        if (total > 0) {
            line.append(String.format(" / %,d %s (%d%%)", total, unit, percent()));
        } else {
            line.append(' ').append(unit);
        }
        line.append(", ").append(rate(rate));
        if (total > 0 && done > 0 && done < total) {
            line.append(", ~")
                    .append(format(Duration.ofMillis((long) ((total - done) / rate * 1000))))
                    .append(" left");
        }
        line.append(", ")
                .append(format(Duration.ofMillis((long) (seconds * 1000))))
                .append(" so far");
        return line.toString();
    }

    private static String rate(double perSecond) {
        if (perSecond >= 10) {
            return String.format("%,.0f/s", perSecond);
        }
        return perSecond >= 0.1 || perSecond == 0
                ? String.format("%.1f/s", perSecond)
                : String.format("%.1f/min", perSecond * 60);
    }

    private long percent() {
        return Math.min(100, done * 100 / total);
    }

    static String format(Duration d) {
        long s = d.toSeconds();
        return s >= 3600
                ? String.format("%dh%02dm", s / 3600, s / 60 % 60)
                : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }

    /** Ends a redrawn line, so the command's report starts on a line of its own. */
    @Override
    public synchronized void close() {
        if (drawn) {
            out.print("\r" + line(nanos.getAsLong()) + "\033[K" + System.lineSeparator());
            out.flush();
        }
    }
}
