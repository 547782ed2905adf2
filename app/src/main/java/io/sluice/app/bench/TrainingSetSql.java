package io.sluice.app.bench;

import io.sluice.config.FeatureConfig;
import io.sluice.config.FeatureViewConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A training set computed in DuckDB SQL straight from DESIGN.md's definition, {@code AGG{x.field :
 * x.key = e, floor_s(t) − W ≤ x.ts < t}}, null for an entity with no event in the view's retention
 * ({@code floor_s(t) − ttl ≤ x.ts < t}: NOT_FOUND), over the warehouse Parquet files: it shares no
 * code with the tile library, so it is both the benchmark's baseline and the tests' independent
 * oracle.
 *
 * <p>The statement returns the spine's columns then {@code <view>__<feature>} in request order, one
 * row per spine row in file order. The spine is Parquet with a timestamp column.
 */
public final class TrainingSetSql {

    private TrainingSetSql() {}

    /**
     * @param features {@code view:feature} in output order
     */
    public static String query(
            SluiceConfig config, Path spine, String timestampColumn, List<String> features) {
        Map<String, List<String>> byView = new LinkedHashMap<>();
        for (String ref : features) {
            String[] parts = ref.split(":", 2);
            byView.computeIfAbsent(parts[0], v -> new ArrayList<>()).add(parts[1]);
        }
        StringBuilder sql = new StringBuilder("with spine as (select * from read_parquet(");
        sql.append(literal(spine.toString())).append(", file_row_number = true))");
        List<String> select = new ArrayList<>();
        int v = 0;
        for (var entry : byView.entrySet()) {
            FeatureViewConfig view = config.featureView(entry.getKey()).orElseThrow();
            TableConfig table = config.table(view.source()).orElseThrow();
            long tile = view.tile().toMillis();
            // An entity with no event in the view's retention before t is NOT_FOUND: all null.
            long ttl = view.ttl().toMillis();
            long longest = ttl;
            String known =
                    "count(e.id) filter (where e.ts_us >= (s.floor_ms - " + ttl + ") * 1000) > 0";
            List<String> aggs = new ArrayList<>();
            for (String name : entry.getValue()) {
                FeatureConfig f =
                        view.features().stream()
                                .filter(x -> x.name().equals(name))
                                .findFirst()
                                .orElseThrow();
                long w = f.effectiveWindow().toMillis();
                longest = Math.max(longest, w);
                String in = "e.ts_us >= (s.floor_ms - " + w + ") * 1000";
                String field = f.field().map(TrainingSetSql::ident).map(x -> "e." + x).orElse(null);
                String agg =
                        switch (f.agg()) {
                            case COUNT -> "count(e.id) filter (where " + in + ")";
                            case SUM -> "coalesce(sum(" + field + ") filter (where " + in + "), 0)";
                            case MIN, MAX, AVG ->
                                    f.agg().name().toLowerCase()
                                            + "("
                                            + field
                                            + ") filter (where "
                                            + in
                                            + ")";
                            case LAST ->
                                    "arg_max("
                                            + field
                                            + ", struct_pack(t := e.ts_us, i := e.id)) filter"
                                            + " (where "
                                            + in
                                            + " and "
                                            + field
                                            + " is not null)";
                        };
                String column = ident(view.name() + "__" + name);
                aggs.add("case when " + known + " then " + agg + " end as " + column);
            }
            List<String> fields = new ArrayList<>();
            view.features().stream()
                    .map(FeatureConfig::field)
                    .flatMap(java.util.Optional::stream)
                    .distinct()
                    .forEach(x -> fields.add(ident(x)));
            String events =
                    "(select "
                            + ident(table.key())
                            + " as k, "
                            + ident(table.id())
                            + " as id, epoch_us("
                            + ident(table.eventTime())
                            + ") as ts_us"
                            + (fields.isEmpty() ? "" : ", " + String.join(", ", fields))
                            + " from read_parquet("
                            + literal(
                                    config.tablePath("warehouse", table.name()).getPath()
                                            + "/*/*/*.parquet")
                            + "))";
            String rows =
                    "(select file_row_number as r, "
                            + ident(view.entity())
                            + " as k, epoch_us("
                            + ident(timestampColumn)
                            + ") as t_us, (epoch_us("
                            + ident(timestampColumn)
                            + ") // "
                            + tile * 1000
                            + ") * "
                            + tile
                            + " as floor_ms from spine)";
            sql.append(", v")
                    .append(v)
                    .append(" as (select s.r, ")
                    .append(String.join(", ", aggs))
                    .append(" from ")
                    .append(rows)
                    .append(" s left join ")
                    .append(events)
                    .append(" e on e.k = s.k and e.ts_us < s.t_us and e.ts_us >= (s.floor_ms - ")
                    .append(longest)
                    .append(") * 1000 group by s.r)");
            for (String name : entry.getValue()) {
                select.add("v" + v + "." + ident(view.name() + "__" + name));
            }
            v++;
        }
        // The request's order, whatever the views' order.
        List<String> ordered = new ArrayList<>();
        for (String ref : features) {
            String column = ident(ref.replace(":", "__"));
            ordered.add(
                    select.stream()
                            .filter(c -> c.endsWith("." + column))
                            .findFirst()
                            .orElseThrow());
        }
        sql.append(" select spine.* exclude (file_row_number), ")
                .append(String.join(", ", ordered))
                .append(" from spine");
        for (int i = 0; i < v; i++) {
            sql.append(" join v")
                    .append(i)
                    .append(" on v")
                    .append(i)
                    .append(".r = spine.file_row_number");
        }
        sql.append(" order by spine.file_row_number");
        return sql.toString();
    }

    private static String ident(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
