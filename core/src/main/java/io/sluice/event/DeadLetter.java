package io.sluice.event;

/**
 * A rejected record with everything needed to replay or debug it: its original bytes, why it was
 * rejected, and where it came from. A Flink POJO.
 */
public class DeadLetter {

    public String table;
    public String topic;
    public int partition;
    public long offset;
    public long timestamp;
    public byte[] key;
    public byte[] value;
    public String reason;
    public String message;

    public DeadLetter() {}

    public DeadLetter(
            String table,
            String topic,
            int partition,
            long offset,
            long timestamp,
            byte[] key,
            byte[] value,
            Reason reason,
            String message) {
        this.table = table;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
        this.reason = reason.name();
        this.message = message;
    }

    @Override
    public String toString() {
        return "DeadLetter{"
                + topic
                + "-"
                + partition
                + "@"
                + offset
                + ", "
                + reason
                + ": "
                + message
                + "}";
    }
}
