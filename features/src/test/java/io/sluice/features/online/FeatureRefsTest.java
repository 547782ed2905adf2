package io.sluice.features.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.SluiceConfig;
import io.sluice.features.agg.ViewDef;
import io.sluice.testing.TestConfigs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One resolver, one message, for every caller of {@code view:feature}. */
class FeatureRefsTest {

    private final SluiceConfig config = TestConfigs.shop(Path.of("/tmp"), "localhost:1", "t");
    private final List<ViewDef> views = FeatureRefs.views(config);

    @Test
    void shouldResolveReferencesInRequestOrder() {
        List<FeatureRefs.Resolved> resolved =
                FeatureRefs.resolve(
                        views,
                        FeatureRefs.parse(
                                List.of(
                                        " user_purchases:spend_24h",
                                        "user_purchases:purchases_1h ")));
        assertThat(resolved)
                .extracting(r -> r.view().name() + "/" + r.feature().name())
                .containsExactly("user_purchases/spend_24h", "user_purchases/purchases_1h");
    }

    @Test
    void shouldNameTheUnknownViewOrFeatureAndListWhatExists() {
        assertThatThrownBy(() -> FeatureRefs.resolve(views, FeatureRefs.parse(List.of("nobody:x"))))
                .hasMessageStartingWith("unknown feature view 'nobody' in nobody:x; views: ")
                .hasMessageContaining("user_purchases");
        assertThatThrownBy(
                        () ->
                                FeatureRefs.resolve(
                                        views, FeatureRefs.parse(List.of("user_purchases:nope"))))
                .hasMessageStartingWith(
                        "view 'user_purchases' has no feature 'nope'; its features: ")
                .hasMessageContaining("spend_24h");
        assertThatThrownBy(() -> FeatureRefs.parse(List.of("user_purchases")))
                .hasMessageContaining("is not a feature reference");
    }

    @Test
    void shouldGiveTheReadClientTheSameMessage() {
        FeatureReader reader = new FeatureReader(null, views, () -> 0L);
        assertThatThrownBy(
                        () ->
                                reader.read(
                                        FeatureRefs.parse(List.of("user_purchases:nope")),
                                        List.of("u1"),
                                        0L))
                .hasMessageStartingWith(
                        "view 'user_purchases' has no feature 'nope'; its features: ");
    }
}
