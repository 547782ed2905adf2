package io.sluice.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompatibilityCheckTest {

    private static final Path CURRENT = Path.of("src/main/avro");
    private static final Path RELEASED = Path.of("src/main/resources/io/sluice/schemas/released");

    @TempDir Path tmp;
    private Path current;

    @BeforeEach
    void copyCurrentSchemas() throws IOException {
        current = Files.createDirectories(tmp.resolve("avro"));
        try (Stream<Path> files = Files.list(CURRENT)) {
            for (Path f : files.toList()) {
                Files.copy(f, current.resolve(f.getFileName()));
            }
        }
    }

    @Test
    void shouldAcceptTheShippedSchemas() throws IOException {
        assertThat(CompatibilityCheck.check(CURRENT, RELEASED)).isEmpty();
    }

    @Test
    void shouldAcceptAnOptionalFieldWithDefault() throws IOException {
        edit(
                "Purchase.avsc",
                "{\"name\": \"coupon\"",
                "{\"name\": \"gift\", \"type\": [\"null\", \"string\"], \"default\": null},\n"
                        + "    {\"name\": \"coupon\"");
        assertThat(CompatibilityCheck.check(current, RELEASED)).isEmpty();
    }

    @Test
    void shouldFailTheBuildWhenARequiredFieldIsAddedWithoutDefault() throws IOException {
        edit(
                "PageView.avsc",
                "{\"name\": \"page\", \"type\": \"string\"",
                "{\"name\": \"page\", \"type\": \"string\"},\n"
                        + "    {\"name\": \"tenant\", \"type\": \"string\"");

        assertThat(CompatibilityCheck.check(current, RELEASED))
                .singleElement()
                .asString()
                .contains("v1/PageView.avsc", "READER_FIELD_MISSING_DEFAULT", "tenant");
        assertThatThrownBy(
                        () ->
                                CompatibilityCheck.main(
                                        new String[] {current.toString(), RELEASED.toString()}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("breaks backward compatibility");
    }

    @Test
    void shouldFailWhenAFieldTypeNarrows() throws IOException {
        edit(
                "AddToCart.avsc",
                "{\"name\": \"price\", \"type\": \"float\"",
                "{\"name\": \"price\", \"type\": \"int\"");

        assertThat(CompatibilityCheck.check(current, RELEASED))
                .singleElement()
                .asString()
                .contains("v1/AddToCart.avsc", "TYPE_MISMATCH", "price");
    }

    @Test
    void shouldFailWhenAReleasedRecordIsRemoved() throws IOException {
        Files.delete(current.resolve("PageView.avsc"));

        assertThat(CompatibilityCheck.check(current, RELEASED))
                .singleElement()
                .asString()
                .contains("io.sluice.schemas.PageView was removed");
    }

    private void edit(String file, String from, String to) throws IOException {
        Path path = current.resolve(file);
        String text = Files.readString(path);
        assertThat(text).contains(from);
        Files.writeString(path, text.replace(from, to));
    }
}
