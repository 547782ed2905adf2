package io.sluice.features.testing;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.event.Event;
import io.sluice.event.EventParser;
import io.sluice.event.EventStreams;
import io.sluice.event.InvalidEventException;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.ViewDef;
import io.sluice.generate.GeneratedRecord;
import io.sluice.generate.Generator;
import io.sluice.generate.GeneratorOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;

/** What a view should hold for a generated stream: each entity's accepted events. */
public final class Expected {

    private Expected() {}

    /**
     * A seeded stream for the config's tables over the five hours before the current one, with the
     * generator's default duplicates, invalid and late records.
     */
    public static List<GeneratedRecord> stream(SluiceConfig config, long events, long seed) {
        List<GeneratedRecord> generated = new ArrayList<>();
        new Generator(
                        config.tables(),
                        GeneratorOptions.defaults(events, seed)
                                .withStart(
                                        Instant.now()
                                                .truncatedTo(ChronoUnit.HOURS)
                                                .minus(5, ChronoUnit.HOURS)))
                .run(generated::add);
        return generated;
    }

    /** The generator's valid records of the view's table, once per id, by entity. */
    public static Map<String, List<EventEntry>> events(
            FeatureViewConfig view, TableConfig table, List<GeneratedRecord> generated) {
        ViewDef def = ViewDef.of(view, table);
        EventParser parser =
                new EventParser(EventStreams.parseSpec(table), System::currentTimeMillis);
        GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(table.schema());
        Map<String, List<EventEntry>> byEntity = new LinkedHashMap<>();
        Set<String> ids = new HashSet<>();
        for (GeneratedRecord r : generated) {
            if (!r.table().equals(table.name()) || r.kind() == GeneratedRecord.Kind.INVALID) {
                continue;
            }
            if (!ids.add(r.eventId())) {
                continue;
            }
            try {
                Event e = parser.toEvent(r.value());
                GenericRecord record =
                        reader.read(null, DecoderFactory.get().binaryDecoder(e.payload, null));
                byEntity.computeIfAbsent(e.key, k -> new ArrayList<>())
                        .add(def.entry(record, e.id, e.eventTime));
            } catch (InvalidEventException e) {
                throw new IllegalStateException("a valid generated record failed to parse", e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return byEntity;
    }
}
