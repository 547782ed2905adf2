package io.sluice.app;

import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.TableConfig;
import io.sluice.testing.DuckDb;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code value(f, e, t)} computed in DuckDB SQL over the warehouse Parquet files: an independent
 * implementation of DESIGN.md's definition, sharing no code with the tile library. DuckDB reads a
 * table's files once, into a temporary table of the connection, on the first question about it: the
 * callers ask hundreds, and a scan of every bucket file of every hour for each cost most of their
 * tests' time.
 */
final class SqlFeatures {

    private final DuckDb duck;
    private final Path warehouse;
    private final Set<String> loaded = new HashSet<>();

    SqlFeatures(DuckDb duck, Path warehouse) {
        this.duck = duck;
        this.warehouse = warehouse;
    }

    /** The temporary table holding every warehouse row of {@code table}, read on first use. */
    private String rowsOf(TableConfig table) {
        String name = "sql_features_" + table.name();
        if (loaded.add(table.name())) {
            duck.execute(
                    String.format(
                            "create or replace temp table %s as select * from"
                                    + " read_parquet('%s/%s/*/*/*.parquet')",
                            name, warehouse, table.name()));
        }
        return name;
    }

    /**
     * Whether {@code entity} is known to {@code view} at {@code t}: it has an event in the view's
     * retention before t, {@code floor_s(t) − ttl ≤ x.ts < t}. Else every feature is NOT_FOUND.
     */
    boolean known(FeatureViewConfig view, TableConfig table, String entity, long t) {
        long tile = view.tile().toMillis();
        long start = Math.floorDiv(t, tile) * tile - view.ttl().toMillis();
        return duck.count(
                        String.format(
                                "select count(*) from %s where"
                                        + " %s = '%s' and epoch_ms(%s) >= %d and epoch_ms(%s) < %d",
                                rowsOf(table),
                                table.key(),
                                entity.replace("'", "''"),
                                table.eventTime(),
                                start,
                                table.eventTime(),
                                t))
                > 0;
    }

    /** The value and the latest contributing event time (epoch ms, or null) of one feature. */
    Map<String, Object> value(
            FeatureViewConfig view, TableConfig table, FeatureConfig f, String entity, long t) {
        long tile = view.tile().toMillis();
        long start = Math.floorDiv(t, tile) * tile - f.effectiveWindow().toMillis();
        String rows =
                String.format(
                        "(select * from %s"
                                + " where %s = '%s' and epoch_ms(%s) >= %d and epoch_ms(%s) < %d)",
                        rowsOf(table),
                        table.key(),
                        entity.replace("'", "''"),
                        table.eventTime(),
                        start,
                        table.eventTime(),
                        t);
        String time = "epoch_ms(" + table.eventTime() + ")";
        String field = f.field().orElse(null);
        String sql =
                switch (f.agg()) {
                    case COUNT ->
                            "select count(*) as v, max(" + time + ") as ts from " + rows + " r";
                    case SUM ->
                            "select coalesce(sum("
                                    + field
                                    + "), 0) as v, max("
                                    + time
                                    + ") as ts from "
                                    + rows
                                    + " r where "
                                    + field
                                    + " is not null";
                    case MIN, MAX, AVG ->
                            "select "
                                    + f.agg().name().toLowerCase()
                                    + "("
                                    + field
                                    + ") as v, max("
                                    + time
                                    + ") as ts from "
                                    + rows
                                    + " r where "
                                    + field
                                    + " is not null";
                    case LAST ->
                            "select "
                                    + field
                                    + "::varchar as v, "
                                    + time
                                    + " as ts from "
                                    + rows
                                    + " r where "
                                    + field
                                    + " is not null order by "
                                    + table.eventTime()
                                    + " desc, "
                                    + table.id()
                                    + " desc limit 1";
                };
        List<Map<String, Object>> result = duck.rows(sql);
        return result.isEmpty() ? Map.of() : result.get(0);
    }
}
