package io.sluice.features.testing;

import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.features.agg.EventEntry;
import io.sluice.features.agg.FeatureDef;
import io.sluice.features.agg.FeatureValue;
import io.sluice.features.agg.Status;
import io.sluice.features.agg.ViewDef;
import io.sluice.features.online.FeatureReader;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import io.sluice.generate.GeneratedRecord;
import io.sluice.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/** Compares what the online store serves with the definition, for sampled entities and times. */
public final class OnlineCheck {

    private OnlineCheck() {}

    /**
     * Asserts that every feature of 25 sampled entities (and one unknown) at 12 sampled times in
     * the last 6 hours equals {@link Definition#value} over the generated accepted events.
     *
     * @return how many values were compared
     */
    public static long exact(SluiceConfig config, List<GeneratedRecord> generated)
            throws Exception {
        long now = System.currentTimeMillis();
        SplittableRandom random = new SplittableRandom(7);
        long compared = 0;
        try (OnlineStore store = OnlineStores.open(config.online())) {
            for (FeatureViewConfig viewConfig : config.featureViews()) {
                TableConfig table = config.table(viewConfig.source()).orElseThrow();
                ViewDef view = ViewDef.of(viewConfig, table);
                Map<String, List<EventEntry>> expected =
                        Expected.events(viewConfig, table, generated);
                // The generator stamps some events a little ahead of the wall clock; the reader
                // refuses times it has not reached, so its clock is past every event.
                long clock = now;
                for (List<EventEntry> events : expected.values()) {
                    for (EventEntry e : events) {
                        clock = Math.max(clock, e.ts() + 1);
                    }
                }
                long readerNow = clock;
                FeatureReader reader = new FeatureReader(store, List.of(view), () -> readerNow);
                List<String> entities = new ArrayList<>(expected.keySet());
                List<String> sample = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    sample.add(entities.get(random.nextInt(entities.size())));
                }
                sample.add("user-that-never-came");
                List<FeatureReader.FeatureRef> refs = new ArrayList<>();
                view.features()
                        .forEach(
                                f -> refs.add(new FeatureReader.FeatureRef(view.name(), f.name())));
                compared += writtenThrough(store, view, reader, refs, sample);
                for (int q = 0; q < 12; q++) {
                    long at = now - random.nextLong(6 * 3_600_000L);
                    if (q % 3 == 0) {
                        // On an event's own time: it must not count itself.
                        List<EventEntry> some = expected.get(sample.get(q));
                        at = some.get(random.nextInt(some.size())).ts();
                    }
                    List<FeatureReader.Vector> vectors = reader.read(refs, sample, at);
                    for (FeatureReader.Vector v : vectors) {
                        List<EventEntry> events = expected.getOrDefault(v.entity(), List.of());
                        for (int i = 0; i < view.features().size(); i++) {
                            FeatureDef f = view.features().get(i);
                            FeatureValue want = Definition.value(view, f, at, events);
                            FeatureValue got = v.values().get(i);
                            String what =
                                    view.name()
                                            + ":"
                                            + f.name()
                                            + " of "
                                            + v.entity()
                                            + " at "
                                            + at;
                            SameValue.assertSame(what, want, got);
                            compared++;
                        }
                    }
                }
            }
        }
        return compared;
    }

    /**
     * Asserts that after a bounded run of the features job over {@code generated}, every view is
     * marked written through a time past 95% of its accepted events (the rest may be a few stamped
     * ahead of the others) and not past the newest.
     */
    public static void markedNearTheEnd(SluiceConfig config, List<GeneratedRecord> generated)
            throws Exception {
        try (OnlineStore store = OnlineStores.open(config.online())) {
            for (FeatureViewConfig viewConfig : config.featureViews()) {
                TableConfig table = config.table(viewConfig.source()).orElseThrow();
                List<Long> times = new ArrayList<>();
                Expected.events(viewConfig, table, generated)
                        .values()
                        .forEach(events -> events.forEach(e -> times.add(e.ts())));
                times.sort(null);
                long newest = times.get(times.size() - 1);
                long most = times.get(times.size() * 95 / 100);
                OptionalLong w = store.writtenThrough(viewConfig.name());
                if (w.isEmpty() || w.getAsLong() < most || w.getAsLong() > newest) {
                    throw new AssertionError(
                            viewConfig.name()
                                    + " marked written through "
                                    + w
                                    + "; 95% of its events by "
                                    + most
                                    + ", the newest at "
                                    + newest);
                }
            }
        }
    }

    /**
     * Asserts that the job marked the view written through a watermark; that a read as of the time
     * just after the mark is whole (equal to an unchecked read), and one a millisecond later {@code
     * INCOMPLETE} while the mark has not moved. (How close the mark is to the events depends on the
     * partitions' watermarks and idleness: {@link #markedNearTheEnd} checks it after a bounded
     * run.)
     *
     * @return how many values were compared
     */
    private static long writtenThrough(
            OnlineStore store,
            ViewDef view,
            FeatureReader reader,
            List<FeatureReader.FeatureRef> refs,
            List<String> sample)
            throws Exception {
        // The values are there; the mark follows with the sink's next flush.
        OptionalLong[] seen = {OptionalLong.empty()};
        Await.until(
                "the features job marks " + view.name() + " written through a watermark",
                Duration.ofSeconds(60),
                () -> {
                    try {
                        seen[0] = store.writtenThrough(view.name());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return seen[0].isPresent();
                });
        long w = seen[0].getAsLong();
        Instant whole = Instant.ofEpochMilli(w + 1);
        List<FeatureReader.Vector> asOf = reader.readAsOf(refs, sample, whole);
        List<FeatureReader.Vector> unchecked = reader.read(refs, sample, whole);
        long compared = 0;
        for (int e = 0; e < sample.size(); e++) {
            for (int i = 0; i < refs.size(); i++) {
                SameValue.assertSame(
                        refs.get(i) + " of " + sample.get(e) + " as of the mark",
                        unchecked.get(e).values().get(i),
                        asOf.get(e).values().get(i));
                compared++;
            }
        }
        List<FeatureReader.Vector> later =
                reader.readAsOf(refs, sample, Instant.ofEpochMilli(w + 2));
        if (store.writtenThrough(view.name()).orElseThrow() > w) {
            return compared; // a streaming job's mark moved on meanwhile: the answer may be whole
        }
        for (FeatureReader.Vector v : later) {
            for (FeatureValue value : v.values()) {
                if (value.status() != Status.INCOMPLETE) {
                    throw new AssertionError(
                            "past the mark, " + v.entity() + " read " + value + ", not INCOMPLETE");
                }
            }
        }
        return compared;
    }
}
