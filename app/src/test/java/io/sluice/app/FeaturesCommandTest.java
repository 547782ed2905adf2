package io.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.SluiceConfig;
import io.sluice.redis.LocalRedis;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code sluice features} says at start about the online store's persistence. */
class FeaturesCommandTest {

    @TempDir Path dir;

    /**
     * A managed Redis may refuse {@code CONFIG}: the job then warns that it could not read how the
     * store persists its writes, with the server's answer and what exact online values need.
     */
    @Test
    void warnsWhenTheRedisServerRefusesToShowItsPersistence() throws Exception {
        try (LocalRedis redis = LocalRedis.refusingConfig()) {
            FeaturesCommand command = new FeaturesCommand();
            CommandLine cli = new CommandLine(command);
            StringWriter err = new StringWriter();
            cli.setErr(new PrintWriter(err));
            SluiceConfig reference = ReferenceConfig.writeInto(dir, "localhost:1");
            cli.parseArgs(
                    "--config", dir.resolve("sluice.yaml").toString(),
                    "--online", redis.uri().toString());
            SluiceConfig config = command.adjust(reference);

            command.beforeExecute(config);

            assertThat(err.toString())
                    .startsWith(
                            "sluice features: WARNING: could not read how the online store"
                                    + " persists its writes (")
                    .containsIgnoringCase("unknown command")
                    .contains("appendonly yes, appendfsync always");
        }
    }
}
