package io.sluice.generate;

import io.sluice.event.Reason;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/** Counts of what the generator emitted: the ground truth a run is checked against. */
public final class GeneratorStats {

    private long generated;
    private long duplicates;
    private long late;
    private final Map<String, Long> validByTable = new TreeMap<>();
    private final Map<Reason, Long> invalidByReason = new EnumMap<>(Reason.class);

    void record(GeneratedRecord record, boolean isLate) {
        generated++;
        switch (record.kind()) {
            case VALID -> validByTable.merge(record.table(), 1L, Long::sum);
            case DUPLICATE -> duplicates++;
            case INVALID -> invalidByReason.merge(record.reason(), 1L, Long::sum);
        }
        if (isLate) {
            late++;
        }
    }

    public long generated() {
        return generated;
    }

    public long valid() {
        return validByTable.values().stream().mapToLong(Long::longValue).sum();
    }

    public long duplicates() {
        return duplicates;
    }

    public long invalid() {
        return invalidByReason.values().stream().mapToLong(Long::longValue).sum();
    }

    public long late() {
        return late;
    }

    public Map<String, Long> validByTable() {
        return Map.copyOf(validByTable);
    }

    public Map<Reason, Long> invalidByReason() {
        return Map.copyOf(invalidByReason);
    }
}
