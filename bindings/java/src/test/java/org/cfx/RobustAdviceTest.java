package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * Robust advice from the exact engine and plausibility flags, through the JNI shim: the robust
 * answer's Γ meets the target and costs at least the plain optimum; the flags of an absurd advice
 * (credit amount far above every accepted applicant's) say so, and bad input is refused.
 */
class RobustAdviceTest {
    @Test
    void robustAnswerMeetsItsTargetAndAbsurdAdviceIsFlagged() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points yet");
        try (Dataset german = Dataset.loadGerman(TestData.germanPath());
                Schema schema = german.schema();
                Dataset.Split split = german.holdoutSplit();
                Model model = Model.fitLinear(split.train(), 1.0);
                Config robust = Config.builder().robustAdvice(0.01, 0.1).build();
                Plausibility ranges = Plausibility.fit(schema, split.train().rows(), split.train().labels())) {
            double[] raw = split.test().row(2);
            try (CoherentResult plain = Coherent.explain(schema, model, null, raw);
                    CoherentResult r = Coherent.explain(schema, model, robust, raw)) {
                assertTrue(Double.isNaN(plain.invalidationRate(0)));
                double gamma = r.invalidationRate(0);
                assertTrue(gamma <= 0.1 && gamma > 0.0, "Γ = " + gamma);
                assertTrue(r.certificate(0).cost() >= plain.certificate(0).cost() - 1e-9);
                assertTrue(r.describe().contains("robust to slips (σ² = 0.01, ≤ 10% declined)"), r.describe());
                Plausibility.Assessment a = ranges.assess(raw, r.counterfactual(0));
                assertEquals(schema.nFeatures(), a.flags().length);
            }
            // The credit amount moved to 18,000 DM, above the 99% point of accepted applicants.
            double[] absurd = raw.clone();
            int amount = -1;
            for (int i = 0; i < schema.nFeatures(); i++) {
                if (schema.featureName(i).equals("credit_amount")) {
                    amount = i;
                }
            }
            assertTrue(amount >= 0);
            absurd[amount] = 18000;
            Plausibility.Assessment a = ranges.assess(raw, absurd);
            assertTrue(a.anyImplausible());
            assertEquals(1, a.flags()[amount]);
            assertTrue(a.distances()[amount] > 0);
            for (int i = 0; i < schema.nFeatures(); i++) {
                if (i != amount) {
                    assertEquals(-1, a.flags()[i]);
                }
            }
            CfxException e = assertThrows(CfxException.class, () -> ranges.assess(new double[] {1.0}, absurd));
            assertEquals(Status.DIMENSION_MISMATCH, e.statusCode());
            assertThrows(CfxException.class, () -> Config.builder().robustAdvice(0.01, 1.0));
        }
    }
}
