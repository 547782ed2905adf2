package io.sluice.event;

/**
 * The outcome of parsing one source record: exactly one of {@link #event} and {@link #deadLetter}
 * is set. One type for both lets the Kafka source emit every record, so that watermarks stay
 * per-partition and bad records still reach the dead-letter path.
 */
public class Parsed {

    public Event event;
    public DeadLetter deadLetter;

    public Parsed() {}

    public static Parsed accepted(Event event) {
        Parsed p = new Parsed();
        p.event = event;
        return p;
    }

    public static Parsed rejected(DeadLetter deadLetter) {
        Parsed p = new Parsed();
        p.deadLetter = deadLetter;
        return p;
    }

    public boolean isValid() {
        return event != null;
    }
}
