package io.sluice.features.agg;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One fine tile of one entity: the accepted events whose time falls in {@code [start, start + s)}.
 *
 * <p>A tile keeps its events, not only their aggregate, because a window's head is exact: the value
 * at {@code t} counts the events of {@code t}'s own tile that happened before {@code t}, for any
 * {@code t}. Adding an event is idempotent (by id). A tile normally only grows, but an event can be
 * {@linkplain #remove removed} when a later copy of its id supersedes it ({@code
 * io.sluice.event.DuplicateRule}), so the features job versions tiles by a modification count, not
 * by their size.
 */
public final class Tile {

    private static final Comparator<EventEntry> ORDER =
            Comparator.comparingLong(EventEntry::ts)
                    .thenComparing(EventEntry::id, Partial::compareIds);

    private final long start;
    private final List<EventEntry> events;

    /** Built on the first {@link #add}: a tile decoded only to be read never needs it. */
    private Set<String> ids;

    /**
     * {@link TileCodec#encodeFine}'s bytes of the events as they were, or null: set by an encoding,
     * kept by an event added at the end (they still encode the events before it, and the next
     * encoding only appends), dropped by any other change. Volatile because a checkpoint encodes
     * tiles on another thread than the one that changes them.
     */
    private volatile byte[] encoded;

    public Tile(long start) {
        this(start, new ArrayList<>());
    }

    /** A tile holding {@code events} (any order; duplicate ids are dropped). */
    public Tile(long start, List<EventEntry> events) {
        this.start = start;
        this.events = new ArrayList<>(events.size());
        for (EventEntry e : events) {
            add(e);
        }
    }

    private Tile(ArrayList<EventEntry> ordered, long start) {
        this.start = start;
        this.events = ordered;
    }

    /**
     * A tile of events that are already in (time, id) order with distinct ids, as {@link TileCodec}
     * wrote them: no sorting or id set is built until an event is added.
     */
    static Tile ofOrdered(long start, ArrayList<EventEntry> events) {
        return new Tile(events, start);
    }

    public long start() {
        return start;
    }

    /** An independent copy; events are immutable, so only the list is copied. */
    public Tile copy() {
        Tile copy = new Tile(new ArrayList<>(events), start);
        copy.encoded = encoded;
        return copy;
    }

    /** Drops the encoding; a tile that was never encoded (a training set's) pays no fence. */
    private void forgetEncoding() {
        if (encoded != null) {
            encoded = null;
        }
    }

    byte[] encoded() {
        return encoded;
    }

    void encoded(byte[] bytes) {
        encoded = bytes;
    }

    /** Adds an event; false if an event with its id is already here. */
    public boolean add(EventEntry event) {
        if (ids == null) {
            ids = new HashSet<>(Math.max(16, events.size() * 2));
            for (EventEntry e : events) {
                ids.add(e.id());
            }
        }
        if (!ids.add(event.id())) {
            return false;
        }
        int at = Collections.binarySearch(events, event, ORDER);
        int index = at < 0 ? -at - 1 : at;
        if (index < events.size()) {
            forgetEncoding(); // not at the end: the kept bytes no longer encode a prefix
        }
        events.add(index, event);
        return true;
    }

    /** Removes the event with {@code id}; returns it, or null if the tile holds none. */
    public EventEntry remove(String id) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).id().equals(id)) {
                if (ids != null) {
                    ids.remove(id);
                }
                forgetEncoding();
                return events.remove(i);
            }
        }
        return null;
    }

    /** The events, ordered by (time, id). */
    public List<EventEntry> events() {
        return Collections.unmodifiableList(events);
    }

    /** How many events the tile holds. */
    public int size() {
        return events.size();
    }

    /** The partial aggregate of {@code feature} over the tile's events before {@code before}. */
    public Partial partial(FeatureDef feature, long before) {
        Partial p = new Partial();
        for (EventEntry e : events) {
            if (e.ts() >= before) {
                break;
            }
            p.add(feature, e);
        }
        return p;
    }

    /** The partial aggregate of {@code feature} over the whole tile. */
    public Partial partial(FeatureDef feature) {
        return partial(feature, Long.MAX_VALUE);
    }
}
