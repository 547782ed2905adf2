package io.sluice.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TableConfig;
import io.sluice.testing.ChildJava;
import io.sluice.testing.LandingEdits;
import io.sluice.testing.TestConfigs;
import io.sluice.testing.WarehouseCheck;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An hour larger than the compacting JVM's whole heap compacts: a child JVM with {@code -Xmx32m}
 * compacts an hour whose rows, held as the in-memory path holds them, take more than 32 MiB, and
 * exits 0; the warehouse it wrote is read back by DuckDB and checked row by row.
 */
class OversizedHourITCase {

    private static final Instant START = Instant.parse("2026-11-21T03:00:00Z");
    private static final String HOUR = "dt=2026-11-21/hr=03";
    private static final int EVENTS = 260_000;
    private static final long CHILD_HEAP = 32L << 20;

    @TempDir Path root;

    @Test
    void aChildJvmWithA32MiBHeapCompactsAnHourLargerThanItsHeap() throws Exception {
        TableConfig purchases =
                TestConfigs.shop(root, "localhost:1", "t").table("purchases").orElseThrow();
        long started = System.nanoTime();
        long landed = landHour(purchases);
        System.out.printf("landed in %d ms%n", (System.nanoTime() - started) / 1_000_000);

        long held = heapOfTheHourInMemory(purchases);
        System.out.printf(
                "%d landed rows take %d MiB of heap in memory; the child's heap is %d MiB%n",
                landed, held >> 20, CHILD_HEAP >> 20);
        assertThat(held).as("the hour's rows in memory").isGreaterThan(CHILD_HEAP);

        // Without the external sort, the same child runs out of memory.
        Child inMemory = compactInChild("in-memory");
        assertThat(inMemory.exit).as(inMemory.output).isNotZero();
        assertThat(inMemory.output).contains("OutOfMemoryError");

        Child spilled = compactInChild("spill");
        assertThat(spilled.exit).as(spilled.output).isZero();
        assertThat(spilled.output).contains("outcome=COMPACTED");
        Matcher runs =
                Pattern.compile("most run files seen at once: (\\d+)").matcher(spilled.output);
        assertThat(runs.find()).as(spilled.output).isTrue();
        assertThat(Integer.parseInt(runs.group(1))).as("run files spilled").isGreaterThan(1);
        try (Stream<Path> left = Files.list(root.resolve("tmp"))) {
            assertThat(left.filter(p -> p.getFileName().toString().startsWith("sluice-compact")))
                    .as("spill files left behind")
                    .isEmpty();
        }

        Map<String, String> warehouseIds =
                WarehouseCheck.verify(root.resolve("warehouse/purchases"), purchases);
        Set<String> landedIds = landedIds(purchases);
        assertThat(warehouseIds.size()).isEqualTo(landedIds.size());
        assertThat(warehouseIds.keySet()).isEqualTo(landedIds);
        assertThat((long) landedIds.size()).isLessThan(landed);
    }

    /**
     * Lands {@link #EVENTS} purchases of 5,000 users in four files, 2% of them copies of an earlier
     * id (half exact repeats, half a later copy under another user, which lands in another bucket),
     * and publishes the hour. Built from records rather than by the generator, which parses each
     * event from JSON and would take most of this test's time.
     *
     * @return the rows landed
     */
    private long landHour(TableConfig purchases) throws IOException {
        Schema schema = purchases.schema();
        Random random = new Random(5);
        long start = START.toEpochMilli();
        List<List<GenericRecord>> files =
                List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        long rows = 0;
        for (int i = 0; i < EVENTS; i++) {
            boolean copy = i > 0 && random.nextInt(50) == 0;
            int n = copy ? random.nextInt(i) : i;
            String id = String.format("evt-%08d-%s", n, Long.toHexString(n * 0x9E3779B97F4A7C15L));
            long time = start + (n * 7_919_993L) % 3_600_000L;
            String user = "user-" + (n * 7919L) % 5_000;
            if (copy && random.nextBoolean()) {
                time += 1_000;
                user = "user-" + random.nextInt(5_000);
            }
            files.get(random.nextInt(files.size()))
                    .add(LandingEdits.purchase(schema, id, time, user, n % 100, "IOS", "FR"));
            rows++;
        }
        Path dir = Files.createDirectories(LandingEdits.hourDir(root, purchases, HOUR));
        for (int f = 0; f < files.size(); f++) {
            LandingEdits.writeAvro(dir.resolve("part-" + f + ".avro"), schema, files.get(f));
        }
        LandingEdits.republish(root, purchases, HOUR);
        return rows;
    }

    /**
     * The heap that the hour's rows take, read as the in-memory path reads them ({@link HourRows},
     * each row's Avro encoding and sort fields: the compactor's smallest form of a row), measured
     * as the used heap after a full GC with the rows held minus the same before.
     */
    private long heapOfTheHourInMemory(TableConfig purchases) throws IOException {
        HourRows hourRows = new HourRows(purchases);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        List<List<HourRows.Row>> rows = new ArrayList<>();
        List<Path> files = avroFiles(purchases);
        for (int i = 0; i < files.size(); i++) {
            rows.add(
                    hourRows.read(
                            files.get(i).toUri(),
                            i,
                            io.sluice.testing.Landing.records(files.get(i))));
        }
        System.gc();
        long after = memory.getHeapMemoryUsage().getUsed();
        assertThat(rows.stream().mapToLong(List::size).sum()).isPositive();
        return after - before;
    }

    private record Child(int exit, String output) {}

    private Child compactInChild(String mode) throws Exception {
        Path log = root.resolve("child-" + mode + ".log");
        List<String> command =
                ChildJava.command(
                        "-Xmx" + (CHILD_HEAP >> 20) + "m",
                        "-XX:+ExitOnOutOfMemoryError",
                        "-XX:ActiveProcessorCount=1",
                        "-Djava.io.tmpdir=" + Files.createDirectories(root.resolve("tmp")),
                        "-cp",
                        ChildJava.classPath(),
                        CompactHourMain.class.getName(),
                        root.toString(),
                        HOUR,
                        mode);
        long started = System.nanoTime();
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        try {
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("child ends").isTrue();
        } finally {
            process.destroyForcibly();
        }
        String output = Files.readString(log);
        System.out.printf(
                "child (%s), exit %d after %d ms:%n%s%n",
                mode, process.exitValue(), (System.nanoTime() - started) / 1_000_000, output);
        return new Child(process.exitValue(), output);
    }

    private List<Path> avroFiles(TableConfig purchases) throws IOException {
        try (Stream<Path> files = Files.list(LandingEdits.hourDir(root, purchases, HOUR))) {
            return files.filter(p -> p.toString().endsWith(".avro")).sorted().toList();
        }
    }

    private Set<String> landedIds(TableConfig purchases) throws IOException {
        Set<String> ids = new HashSet<>();
        for (Path file : avroFiles(purchases)) {
            try (InputStream in = Files.newInputStream(file);
                    DataFileStream<GenericRecord> stream =
                            new DataFileStream<>(in, new GenericDatumReader<>())) {
                for (GenericRecord r : stream) {
                    ids.add(r.get(purchases.id()).toString());
                }
            }
        }
        return ids;
    }
}
