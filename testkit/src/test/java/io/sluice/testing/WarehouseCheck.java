package io.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TableConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hive.common.util.Murmur3;

/**
 * Reads a warehouse table with DuckDB and checks the storage contract with code that shares nothing
 * with the writer: Hive's own Murmur3 for the bucket of every row, byte-wise ordering for the sort,
 * the file-name pattern, and that no id appears twice.
 */
public final class WarehouseCheck {

    private WarehouseCheck() {}

    /**
     * @return every row's id mapped to its {@code dt=/hr=} partition
     */
    public static Map<String, String> verify(Path tableDir, TableConfig table) {
        Map<String, String> ids = new HashMap<>();
        try (DuckDb duck = new DuckDb()) {
            List<Map<String, Object>> rows =
                    duck.rows(
                            String.format(
                                    "select filename, dt, hr, %s::varchar as k,"
                                            + " epoch_us(%s) as us, %s::varchar as id"
                                            + " from read_parquet('%s/*/*/*.parquet',"
                                            + " hive_partitioning=true, filename=true,"
                                            + " file_row_number=true)"
                                            + " order by filename, file_row_number",
                                    table.key(), table.eventTime(), table.id(), tableDir));
            String previousFile = null;
            Object[] previous = null;
            for (Map<String, Object> row : rows) {
                String id = (String) row.get("id");
                String partition = "dt=" + row.get("dt") + "/hr=" + row.get("hr");
                assertThat(ids.put(id, partition)).as("id %s appears once", id).isNull();
                String file = Path.of((String) row.get("filename")).getFileName().toString();
                assertThat(file).matches("\\d{6}_0_[0-9a-f]{16}\\.parquet");
                String key = (String) row.get("k");
                assertThat(Integer.parseInt(file.substring(0, 6)))
                        .as("Hive bucket of key %s in %s", key, file)
                        .isEqualTo(hiveBucket(key, table.buckets()));
                Object[] current = {key, row.get("us"), id};
                if (row.get("filename").equals(previousFile)) {
                    assertThat(compare(previous, current)).as("%s is sorted", file).isNotPositive();
                }
                previousFile = (String) row.get("filename");
                previous = current;
            }
        }
        return ids;
    }

    /** Hive bucketing_version 2 for a STRING key, straight from Hive's Murmur3. */
    public static int hiveBucket(String key, int buckets) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        return (Murmur3.hash32(bytes, bytes.length, 104729) & Integer.MAX_VALUE) % buckets;
    }

    private static int compare(Object[] a, Object[] b) {
        int c =
                Arrays.compareUnsigned(
                        ((String) a[0]).getBytes(StandardCharsets.UTF_8),
                        ((String) b[0]).getBytes(StandardCharsets.UTF_8));
        if (c != 0) {
            return c;
        }
        c = Long.compare(((Number) a[1]).longValue(), ((Number) b[1]).longValue());
        return c != 0
                ? c
                : Arrays.compareUnsigned(
                        ((String) a[2]).getBytes(StandardCharsets.UTF_8),
                        ((String) b[2]).getBytes(StandardCharsets.UTF_8));
    }
}
