package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TableConfig;
import io.sluice.lake.HiveDdl;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sluice ddl}: the Hive DDL of a warehouse table. */
@Command(
        name = "ddl",
        mixinStandardHelpOptions = true,
        description =
                "Print the Hive CREATE EXTERNAL TABLE statement for a warehouse table (Hive,"
                        + " Spark, Trino's Hive connector). Run MSCK REPAIR TABLE after it to"
                        + " register the dt/hr partitions.")
final class DdlCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin ConfigFile config;

    @Parameters(index = "0", paramLabel = "TABLE", description = "A table name from the config.")
    String table;

    @Override
    public Integer call() {
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
                .print(HiveDdl.createTable(t, cfg.tablePath("warehouse", t.name())));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
