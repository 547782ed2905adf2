package io.sluice.serving;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.features.online.FeatureReader.FeatureRef;
import io.sluice.testing.TestConfigs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OnlineRequestTest {

    private static final Catalog CATALOG =
            Catalog.of(TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t"));
    private static final Limits LIMITS = new Limits(3, 2, 1024, 5, 5);
    private static final long NOW = Instant.parse("2026-11-22T12:00:00Z").toEpochMilli();
    private final ObjectMapper mapper = new ObjectMapper();

    private OnlineRequest parse(String json) {
        return OnlineRequest.parse(
                json.replace('\'', '"').getBytes(StandardCharsets.UTF_8),
                mapper,
                CATALOG,
                LIMITS,
                NOW);
    }

    /** Expects the request refused with {@code status}, and returns the message. */
    private String refused(int status, String json) {
        try {
            parse(json);
        } catch (BadRequest e) {
            assertThat(e.status()).as(e.getMessage()).isEqualTo(status);
            assertThat(e.getMessage()).doesNotContain("Exception", "\tat ");
            return e.getMessage();
        }
        throw new AssertionError("accepted: " + json);
    }

    @Test
    void parsesFeastsRequestShape() {
        OnlineRequest r =
                parse(
                        "{'features': ['user_purchases:spend_24h', ' user_activity:last_page '],"
                                + " 'entities': {'user_id': ['u1', 42]},"
                                + " 'full_feature_names': true, 'at': '2026-11-22T11:00:00Z'}");

        assertThat(r.features())
                .containsExactly(
                        new FeatureRef("user_purchases", "spend_24h"),
                        new FeatureRef("user_activity", "last_page"));
        assertThat(r.entityName()).isEqualTo("user_id");
        assertThat(r.entities()).containsExactly("u1", "42");
        assertThat(r.keys().get(1).isIntegralNumber()).as("echoed as sent").isTrue();
        assertThat(r.fullFeatureNames()).isTrue();
        assertThat(r.at()).isEqualTo(Instant.parse("2026-11-22T11:00:00Z"));
    }

    @Test
    void keepsTheSubMillisecondDigitsOfAt() {
        // Rounded to a millisecond either way, one end of the window would move (see Windows).
        OnlineRequest r =
                parse(
                        "{'features': ['user_purchases:purchases_1h'], 'entities': {'user_id':"
                                + " ['u']}, 'at': '2026-11-22T11:16:59.999409123Z'}");
        assertThat(r.at()).isEqualTo(Instant.parse("2026-11-22T11:16:59Z").plusNanos(999_409_123));
        assertThat(
                        parse(
                                        "{'features': ['user_purchases:purchases_1h'], 'entities':"
                                                + " {'user_id': ['u']}, 'at':"
                                                + " '2026-11-22T11:59:59.999999Z'}")
                                .at())
                .isEqualTo(Instant.ofEpochMilli(NOW).minusNanos(1_000));
        // Later than now by a microsecond is the future.
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:purchases_1h'],"
                                        + " 'entities': {'user_id': ['u']},"
                                        + " 'at': '2026-11-22T12:00:00.000001Z'}"))
                .startsWith("at: 2026-11-22T12:00:00.000001Z is in the future");
    }

    @Test
    void defaultsToShortNamesAndNow() {
        OnlineRequest r =
                parse("{'features': ['user_purchases:spend_24h'], 'entities': {'user_id': ['u']}}");
        assertThat(r.fullFeatureNames()).isFalse();
        assertThat(r.at()).isNull();
    }

    @Test
    void refusesMalformedJsonAndWrongShapes() {
        assertThat(refused(400, "{'features': [")).startsWith("the body is not valid JSON");
        assertThat(refused(400, "")).contains("JSON object");
        assertThat(refused(400, "[1, 2]")).contains("JSON object");
    }

    @Test
    void namesTheMissingOrMistypedField() {
        assertThat(refused(400, "{'entities': {'user_id': ['u']}}"))
                .startsWith("features: missing");
        assertThat(refused(400, "{'features': 'user_purchases:spend_24h'}"))
                .startsWith("features: must be a list");
        assertThat(refused(400, "{'features': []}")).startsWith("features: no features");
        assertThat(refused(400, "{'features': ['user_purchases:spend_24h', 7]}"))
                .startsWith("features[1]: must be");
        assertThat(refused(400, "{'features': ['spend_24h']}"))
                .startsWith("features[0]: 'spend_24h' is not a feature reference");
        assertThat(refused(400, "{'features': ['user_purchases:spend_24h']}"))
                .startsWith("entities: missing");
        assertThat(refused(400, "{'features': ['user_purchases:spend_24h'], 'entities': ['u']}"))
                .startsWith("entities: must be an object");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': 'u1'}}"))
                .startsWith("entities.user_id: must be a list");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['u'], 'x': ['v']}}"))
                .startsWith("entities: must be an object with one entity column");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['u']},"
                                        + " 'full_feature_names': 'yes'}"))
                .startsWith("full_feature_names: must be true or false");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['u']}, 'at': 'yesterday'}"))
                .startsWith("at: 'yesterday' is not an ISO instant");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['u']},"
                                        + " 'at': '2026-11-22T13:00:00Z'}"))
                .startsWith("at: 2026-11-22T13:00:00Z is in the future");
    }

    @Test
    void listsWhatExistsForAnUnknownViewOrFeature() {
        assertThat(refused(400, "{'features': ['orders:total'], 'entities': {'user_id': ['u']}}"))
                .startsWith("features: unknown feature view 'orders'")
                .contains("user_activity, user_cart, user_purchases");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_1y'],"
                                        + " 'entities': {'user_id': ['u']}}"))
                .startsWith("features: view 'user_purchases' has no feature 'spend_1y'")
                .contains("spend_24h", "last_category");
    }

    @Test
    void refusesAnEntityColumnThatIsNotTheViews() {
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'customer_id': ['u']}}"))
                .isEqualTo(
                        "entities: 'customer_id' is not the entity of view 'user_purchases',"
                                + " whose entity is 'user_id'");
    }

    @Test
    void refusesEmptyKeysAndKeysOfOtherTypes() {
        String features = "{'features': ['user_purchases:spend_24h'], ";
        assertThat(refused(400, features + "'entities': {'user_id': []}}"))
                .isEqualTo("entities.user_id: no entity keys");
        assertThat(refused(400, features + "'entities': {'user_id': ['u1', '']}}"))
                .isEqualTo("entities.user_id[1]: empty entity key");
        assertThat(refused(400, features + "'entities': {'user_id': ['u1', ' ']}}"))
                .isEqualTo("entities.user_id[1]: empty entity key");
        assertThat(refused(400, features + "'entities': {'user_id': [null]}}"))
                .isEqualTo("entities.user_id[0]: must be a string or an integer, got null");
        assertThat(refused(400, features + "'entities': {'user_id': [1.5]}}"))
                .isEqualTo("entities.user_id[0]: must be a string or an integer, got number");
    }

    @Test
    void enforcesTheLimits() {
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['a', 'b', 'c', 'd']}}"))
                .isEqualTo("entities.user_id: 4 entity keys, more than the limit of 3 per request");
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h',"
                                    + " 'user_purchases:purchases_1h', 'user_activity:last_page'],"
                                    + " 'entities': {'user_id': ['a']}}"))
                .isEqualTo("features: 3 features, more than the limit of 2 per request");
        assertThat(
                        parse(
                                        "{'features': ['user_purchases:spend_24h'],"
                                                + " 'entities': {'user_id': ['a', 'b', 'c']}}")
                                .entities())
                .hasSize(3);
    }

    @Test
    void refusesKeysThatAreNotValidUnicode() {
        // An unpaired surrogate has no UTF-8 form: the store would read the key of '?' instead.
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['u1', 'a\\ud800']}}"))
                .isEqualTo(
                        "entities.user_id[1]: not valid Unicode (an unpaired surrogate at"
                                + " character 1)");
        assertThat(
                        parse(
                                        "{'features': ['user_purchases:spend_24h'],"
                                                + " 'entities': {'user_id': ['\\ud83d\\ude00']}}")
                                .entities())
                .containsExactly("\ud83d\ude00");
    }

    @Test
    void refusesFeaturesTheResponseCouldNotTellApartAsFeastDoes() {
        // Both views have a last_category: without full names the columns would share a name.
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_activity:last_category',"
                                        + " 'user_purchases:last_category'],"
                                        + " 'entities': {'user_id': ['a']}}"))
                .isEqualTo(
                        "features: [user_activity:last_category, user_purchases:last_category]"
                                + " share a name; set \"full_feature_names\": true to get"
                                + " view__feature names, or ask for one of them");
        assertThat(
                        parse(
                                        "{'features': ['user_activity:last_category',"
                                                + " 'user_purchases:last_category'],"
                                                + " 'entities': {'user_id': ['a']},"
                                                + " 'full_feature_names': true}")
                                .features())
                .hasSize(2);
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h',"
                                        + " 'user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['a']},"
                                        + " 'full_feature_names': true}"))
                .isEqualTo(
                        "features: [user_purchases:spend_24h, user_purchases:spend_24h] asked for"
                                + " more than once");
    }

    @Test
    void refusesAnAtBeforeYearOneInsteadOfOverflowing() {
        assertThat(
                        refused(
                                400,
                                "{'features': ['user_purchases:spend_24h'],"
                                        + " 'entities': {'user_id': ['a']},"
                                        + " 'at': '-999999999-01-01T00:00:00Z'}"))
                .isEqualTo(
                        "at: -999999999-01-01T00:00:00Z is before year 1; no store holds values"
                                + " that old");
        assertThat(
                        parse(
                                        "{'features': ['user_purchases:spend_24h'],"
                                                + " 'entities': {'user_id': ['a']},"
                                                + " 'at': '0001-01-01T00:00:00Z'}")
                                .at())
                .isEqualTo(Instant.parse("0001-01-01T00:00:00Z"));
    }
}
