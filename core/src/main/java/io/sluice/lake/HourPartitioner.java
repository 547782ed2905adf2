package io.sluice.lake;

import io.sluice.event.Event;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;

/**
 * Assigns each event to its event-time hour, {@code dt=YYYY-MM-DD/hr=HH} in UTC. The partition is
 * computed from the timestamp alone, never from text inside the event, so no event can write
 * outside its table's directory.
 */
public final class HourPartitioner implements BucketAssigner<Event, String> {

    private static final long serialVersionUID = 1L;
    private static final long HOUR_MS = 3_600_000L;
    private static final Pattern PARTITION =
            Pattern.compile("dt=(\\d{4}-\\d{2}-\\d{2})/hr=(\\d{2})");
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("'dt='yyyy-MM-dd'/hr='HH").withZone(ZoneOffset.UTC);

    /** The last hour this assigner named, and its partition: formatting per event was costly. */
    private transient long lastHour;

    private transient String lastPartition;

    @Override
    public String getBucketId(Event event, Context context) {
        long hour = hourStart(event.eventTime);
        if (lastPartition == null || hour != lastHour) {
            lastPartition = partition(hour);
            lastHour = hour;
        }
        return lastPartition;
    }

    @Override
    public SimpleVersionedSerializer<String> getSerializer() {
        return SimpleVersionedStringSerializer.INSTANCE;
    }

    /** The partition path of the hour that holds {@code epochMillis}. */
    public static String partition(long epochMillis) {
        return FORMAT.format(Instant.ofEpochMilli(hourStart(epochMillis)));
    }

    /** The start of the hour that holds {@code epochMillis}. */
    public static long hourStart(long epochMillis) {
        return Math.floorDiv(epochMillis, HOUR_MS) * HOUR_MS;
    }

    /** The start of the hour a partition path names; the inverse of {@link #partition(long)}. */
    public static long parse(String partition) {
        Matcher m = PARTITION.matcher(partition);
        if (!m.matches()) {
            throw new IllegalArgumentException("Not an hour partition: " + partition);
        }
        try {
            return LocalDate.parse(m.group(1))
                    .atTime(Integer.parseInt(m.group(2)), 0)
                    .toInstant(ZoneOffset.UTC)
                    .toEpochMilli();
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("Not an hour partition: " + partition, e);
        }
    }

    public static long hourMillis() {
        return HOUR_MS;
    }
}
