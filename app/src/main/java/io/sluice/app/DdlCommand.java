package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.TableDdl;
import io.sluice.lake.TableDdl.Dialect;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sluice ddl}: the statements that make a warehouse table queryable in an engine. */
@Command(
        name = "ddl",
        mixinStandardHelpOptions = true,
        description = {
            "Print the statements that make a warehouse table queryable in an engine, to run as"
                    + " printed: hive (CREATE EXTERNAL TABLE with the bucketing, then MSCK REPAIR"
                    + " TABLE), spark (an unbucketed data source table, then MSCK REPAIR TABLE),"
                    + " trino (the Hive connector's CREATE TABLE, then sync_partition_metadata) or"
                    + " duckdb (a view over the files)."
        })
final class DdlCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Option(
            names = "--dialect",
            defaultValue = "hive",
            paramLabel = "hive|spark|trino|duckdb",
            description = "The engine (default ${DEFAULT-VALUE}).")
    String dialect;

    @Parameters(index = "0", paramLabel = "TABLE", description = "A table name from the config.")
    String table;

    @Override
    public Integer call() {
        Dialect d = dialect(dialect);
        SluiceConfig cfg = config.load();
        TableConfig t =
                cfg.table(table)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "TABLE: no table '"
                                                        + table
                                                        + "' in "
                                                        + config
                                                        + "; tables: "
                                                        + cfg.tables().stream()
                                                                .map(TableConfig::name)
                                                                .collect(
                                                                        Collectors.joining(", "))));
        spec.commandLine()
                .getOut()
                .print(TableDdl.script(t, cfg.tablePath("warehouse", t.name()), d));
        spec.commandLine().getOut().flush();
        return 0;
    }

    static Dialect dialect(String name) {
        return Arrays.stream(Dialect.values())
                .filter(d -> d.option().equals(name.toLowerCase(Locale.ROOT)))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "--dialect: '"
                                                + name
                                                + "' is not one of "
                                                + Arrays.stream(Dialect.values())
                                                        .map(Dialect::option)
                                                        .collect(Collectors.joining(", "))));
    }
}
