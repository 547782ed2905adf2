package io.sluice.event;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The one rule for copies of an event id, applied alike by the ingest job, compaction and the
 * features job, so that the lake and the online store keep the same copy whatever order the copies
 * arrive in.
 *
 * <ul>
 *   <li>The unit is (id, hour of event time, UTC): the hour partition the lake already uses ({@code
 *       io.sluice.lake.HourPartitioner}). Copies of one id whose event times fall in different
 *       hours are different rows, kept both, by every job.
 *   <li>Among the copies of one id in one hour the winner is the one with the earliest event time;
 *       a tie is broken by the smaller digest of {@link Event#payload} (the record's Avro binary
 *       encoding in the table's current schema), compared as unsigned bytes.
 *   <li>Copies with the same digest are exact repeats: plain duplicates, either one is the winner.
 * </ul>
 *
 * <p>The digest is the first {@value #DIGEST_BYTES} bytes of the payload's SHA-256: small enough to
 * keep in de-duplication state, and two different copies of one id colliding on 128 bits is not a
 * practical concern (if it happened the two would be treated as exact repeats).
 */
public final class DuplicateRule {

    /** Bytes of SHA-256 kept as a copy's digest. */
    public static final int DIGEST_BYTES = 16;

    private static final long HOUR_MS = 3_600_000L;

    private static final ThreadLocal<MessageDigest> SHA256 =
            ThreadLocal.withInitial(DuplicateRule::sha256);

    private DuplicateRule() {}

    /** The start of the event-time hour (UTC) a copy belongs to: its de-duplication unit. */
    public static long hour(long eventTime) {
        return Math.floorDiv(eventTime, HOUR_MS) * HOUR_MS;
    }

    /** The key copies are de-duplicated under: the id and its event-time hour. */
    public static String unit(String id, long eventTime) {
        return id + '@' + hour(eventTime);
    }

    /** The de-duplication key of an event; see {@link #unit}. */
    public static String unit(Event event) {
        return unit(event.id, event.eventTime);
    }

    /** A copy's digest: the first {@value #DIGEST_BYTES} bytes of its payload's SHA-256. */
    public static byte[] digest(byte[] payload) {
        return digest(SHA256.get(), payload);
    }

    /** {@link #digest(byte[])} with the caller's own SHA-256 instance (one per task). */
    public static byte[] digest(MessageDigest sha256, byte[] payload) {
        return Arrays.copyOf(sha256.digest(payload), DIGEST_BYTES);
    }

    /** A new SHA-256 instance for {@link #digest(MessageDigest, byte[])}. */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /**
     * Orders two copies of one id in one hour: negative if copy a wins, positive if copy b wins,
     * zero if they are exact repeats (same time and digest).
     */
    public static int compare(long timeA, byte[] digestA, long timeB, byte[] digestB) {
        int c = Long.compare(timeA, timeB);
        return c != 0 ? c : Arrays.compareUnsigned(digestA, digestB);
    }

    /** The rule applied to two events of one id and hour; see {@link #compare}. */
    public static int compare(Event a, Event b) {
        int c = Long.compare(a.eventTime, b.eventTime);
        return c != 0 ? c : Arrays.compareUnsigned(digest(a.payload), digest(b.payload));
    }
}
