package io.sluice.config;

import java.nio.file.Path;
import java.util.function.Function;
import org.apache.avro.Schema;

/** What every section parser needs besides its own YAML: where to report and how to resolve. */
record ParseContext(
        Problems problems,
        EnvSubstitution env,
        Path baseDir,
        Function<String, Schema> schemaResolver) {}
