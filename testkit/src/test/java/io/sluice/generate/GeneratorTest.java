package io.sluice.generate;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.event.EventParser;
import io.sluice.event.EventStreams;
import io.sluice.event.Reason;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class GeneratorTest {

    static final Instant START = Instant.parse("2026-11-21T00:00:00Z");
    static final SluiceConfig CONFIG =
            TestConfigs.shop(Path.of("/tmp/unused"), "localhost:9092", "g");

    private static List<GeneratedRecord> generate(long seed, int events) {
        List<GeneratedRecord> out = new ArrayList<>();
        new Generator(CONFIG.tables(), GeneratorOptions.defaults(events, seed).withStart(START))
                .run(out::add);
        return out;
    }

    @Test
    void shouldBeDeterministicForASeed() {
        List<GeneratedRecord> a = generate(7, 2_000);
        List<GeneratedRecord> b = generate(7, 2_000);
        List<GeneratedRecord> c = generate(8, 2_000);

        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i).value()).isEqualTo(b.get(i).value());
        }
        assertThat(c.get(0).value()).isNotEqualTo(a.get(0).value());
    }

    @Test
    void shouldProduceHotKeys() {
        Map<String, Long> perUser =
                generate(1, 20_000).stream()
                        .filter(r -> r.kind() == GeneratedRecord.Kind.VALID)
                        .collect(
                                Collectors.groupingBy(
                                        r -> new String(r.key()), Collectors.counting()));
        long hottest = perUser.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        double mean = perUser.values().stream().mapToLong(Long::longValue).average().orElseThrow();

        assertThat(hottest)
                .as("Zipf: the top user is far above the mean")
                .isGreaterThan((long) (20 * mean));
    }

    @Test
    void shouldSpreadEventTimesOverTheSpanWithBoundedDisorder() {
        GeneratorOptions options =
                GeneratorOptions.defaults(10_000, 3).withStart(START).withRates(0, 0, 0);
        List<GeneratedRecord> out = new ArrayList<>();
        new Generator(CONFIG.tables(), options).run(out::add);

        long first = out.stream().mapToLong(GeneratedRecord::eventTime).min().orElseThrow();
        long last = out.stream().mapToLong(GeneratedRecord::eventTime).max().orElseThrow();
        assertThat(first)
                .isGreaterThanOrEqualTo(START.minus(options.outOfOrderness()).toEpochMilli());
        assertThat(last).isLessThan(START.plus(options.span()).toEpochMilli());
        long maxBackwards = 0;
        long high = out.get(0).eventTime();
        for (GeneratedRecord r : out) {
            maxBackwards = Math.max(maxBackwards, high - r.eventTime());
            high = Math.max(high, r.eventTime());
        }
        assertThat(maxBackwards)
                .isPositive()
                .isLessThanOrEqualTo(options.outOfOrderness().toMillis() + 10_000);
    }

    @Test
    void shouldLabelEveryRecordAsTheParserWillJudgeIt() {
        List<GeneratedRecord> out = generate(5, 20_000);
        Map<String, EventParser> parsers = new HashMap<>();
        CONFIG.tables()
                .forEach(
                        t ->
                                parsers.put(
                                        t.name(),
                                        new EventParser(
                                                EventStreams.parseSpec(t),
                                                () -> START.plusSeconds(86_400).toEpochMilli())));
        Map<Reason, Long> reasons = new HashMap<>();
        for (GeneratedRecord r : out) {
            var parsed = parsers.get(r.table()).parse(r.topic(), 0, 0, 0, r.key(), r.value());
            if (r.kind() == GeneratedRecord.Kind.INVALID) {
                assertThat(parsed.isValid()).as("invalid %s", r.reason()).isFalse();
                assertThat(parsed.deadLetter.reason).isEqualTo(r.reason().name());
                reasons.merge(r.reason(), 1L, Long::sum);
            } else {
                assertThat(parsed.isValid()).as("valid %s", r.table()).isTrue();
                assertThat(parsed.event.id).isEqualTo(r.eventId());
            }
        }
        assertThat(reasons.keySet()).containsExactlyInAnyOrder(Reason.values());
    }
}
