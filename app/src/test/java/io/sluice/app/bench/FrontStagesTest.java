package io.sluice.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FrontStagesTest {

    @Test
    void eachJobIsComparedWithTheBaselineOfItsOwnRun() {
        FrontStages.Steps steps = new FrontStages.Steps();
        steps.add("baseline", new FrontStages.Measured(100.0, 2.0));
        steps.add("cut", new FrontStages.Measured(90.0, 8.0));
        steps.add("baseline", new FrontStages.Measured(200.0, 4.0));
        steps.add("cut", new FrontStages.Measured(40.0, 6.0));
        steps.add("baseline", new FrontStages.Measured(300.0, 3.0));
        steps.add("cut", new FrontStages.Measured(60.0, 10.0));

        assertThat(steps.table("base"))
                .containsExactly(
                        "| steps, each job alone on the same topic | rec/s | ÷ base | CPU µs per"
                                + " record |",
                        "|---|---|---|---|",
                        "| baseline | 200 [100, 200, 300] | 1.00 [1.00, 1.00, 1.00] | 3.0 [2.0,"
                                + " 4.0, 3.0] |",
                        // Ratios 0.9, 0.2 and 0.2, each of its own run: their median is 0.2,
                        // where the medians' ratio would be 60 / 200.
                        "| cut | 60 [90, 40, 60] | 0.20 [0.90, 0.20, 0.20] | 8.0 [8.0, 6.0,"
                                + " 10.0] |");
    }
}
