package io.sluice.config;

import static io.sluice.config.TestConfigs.VALID;
import static io.sluice.config.TestConfigs.errors;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Real syntax mistakes, each on line 10 of {@link TestConfigs#VALID} ({@code key: user_id}) unless
 * said otherwise: the error names the line an editor shows the mistake on, and the key it is under.
 */
class YamlSyntaxErrorTest {

    private static String only(String yaml) {
        List<String> errors = errors(yaml);
        assertThat(errors).hasSize(1);
        return errors.get(0);
    }

    @Test
    void shouldPointAtAKeyIndentedTooFar() {
        assertThat(only(VALID.replace("    key: user_id", "      key: user_id")))
                .startsWith(
                        "sluice.yaml:10: tables[0].event_time: invalid YAML: mapping values are"
                                + " not allowed here");
    }

    @Test
    void shouldPointAtAKeyIndentedTooLittle() {
        assertThat(only(VALID.replace("    key: user_id", "   key: user_id")))
                .startsWith("sluice.yaml:10: tables: invalid YAML: expected <block end>")
                .endsWith("(while parsing a block collection at line 6)");
    }

    @Test
    void shouldPointAtTheOpeningQuoteNotTheEndOfTheFile() {
        assertThat(only(VALID.replace("    key: user_id", "    key: 'user_id")))
                .isEqualTo(
                        "sluice.yaml:10: tables[0].key: invalid YAML: found unexpected end of"
                                + " stream (while scanning a quoted scalar)");
    }

    @Test
    void shouldPointAtATab() {
        assertThat(only(VALID.replace("    key: user_id", "\tkey: user_id")))
                .startsWith(
                        "sluice.yaml:10: tables[0]: invalid YAML: found character '\\t(TAB)' that"
                                + " cannot start any token");
    }

    @Test
    void shouldPointAtAKeyWithoutItsColonNotAtTheNextLine() {
        assertThat(only(VALID.replace("    key: user_id", "    key user_id")))
                .isEqualTo(
                        "sluice.yaml:10: tables[0]: invalid YAML: could not find expected ':'"
                                + " (while scanning a simple key)");
        // The last line, and blank lines and a comment after it, change nothing.
        assertThat(only(VALID.replace("    buckets: 16", "    buckets 16\n\n# end\n")))
                .startsWith("sluice.yaml:12: tables[0]: invalid YAML: could not find expected ':'");
        assertThat(only(VALID.replace("storage:", "storage")))
                .startsWith("sluice.yaml:3: invalid YAML: could not find expected ':'");
    }

    @Test
    void shouldPointAtAValueThatHoldsAnotherMapping() {
        assertThat(only(VALID.replace("    key: user_id", "    key: user_id: oops")))
                .isEqualTo(
                        "sluice.yaml:10: tables[0].key: invalid YAML: mapping values are not"
                                + " allowed here");
    }

    @Test
    void shouldPointAtAnUnclosedBracketAndNameItsKey() {
        assertThat(only(VALID.replace("buckets: 16", "buckets: [16")))
                .startsWith("sluice.yaml:12: tables[0].buckets: invalid YAML: ");
        assertThat(only(VALID.replace("  root: file:./data", "  root: { path: data")))
                .startsWith("sluice.yaml:4: storage.root: invalid YAML: expected ',' or '}'");
    }

    @Test
    void shouldPointAtAnUnknownAliasUnderItsKey() {
        assertThat(only(VALID.replace("    key: user_id", "    key: *user")))
                .isEqualTo(
                        "sluice.yaml:10: tables[0].key: invalid YAML: found undefined alias user");
    }

    @Test
    void shouldPointAtACharacterYamlRefuses() {
        assertThat(only(VALID.replace("    key: user_id", "    key: user\u0001id")))
                .startsWith("sluice.yaml:10: tables[0].key: invalid YAML: special characters");
    }

    @Test
    void shouldCountLinesOfAWindowsFile() {
        assertThat(only(VALID.replace("    key: user_id", "    key user_id").replace("\n", "\r\n")))
                .startsWith("sluice.yaml:10: tables[0]: invalid YAML: could not find expected ':'");
    }
}
