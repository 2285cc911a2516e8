package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * Robust advice over the values an applicant can reach ({@code cfx_config_builder_set_robust_box})
 * through the JNI shim: on the hand-written German tree model the answer is accepted, its Γ̃
 * (estimated under slips clipped to the range and rounded to the data's grid) meets the target
 * within four standard errors, and the answer says which box it proves; a logistic model refuses
 * the box, and an unknown box is refused.
 */
class RobustBoxTest {
    @Test
    void reachableValuesOnTreesAndRefusedByALinearModel() throws Exception {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points yet");
        String xgb = TestData.root().resolve("bindings/testdata/german_trees_xgboost.json").toString();
        try (Dataset german = Dataset.loadGerman(TestData.germanPath());
                Schema schema = german.schema();
                Dataset.Split split = german.holdoutSplit();
                Model linear = Model.fitLinear(split.train(), 1.0);
                Model trees = Model.fromXgboostFile(schema, xgb, null);
                Config reach = Config.builder().robustAdvice(0.0025, 0.2).robustBox(RobustBox.REACHABLE_VALUES).build();
                Config reals = Config.builder().robustAdvice(0.0025, 0.2).robustBox(RobustBox.REALS).build()) {
            double[] raw = null;
            for (int i = 0; i < split.test().nRows() && raw == null; i++) {
                if (!trees.predictRaw(schema, split.test().row(i)).accepted()) {
                    raw = split.test().row(i);
                }
            }
            assertNotNull(raw, "a declined applicant");
            try (CoherentResult r = Coherent.explain(schema, trees, reach, raw);
                    CoherentResult q = Coherent.explain(schema, trees, reals, raw)) {
                assertTrue(r.count() >= 1 && q.count() >= 1);
                assertTrue(trees.predictRaw(schema, r.counterfactual(0)).accepted());
                double se = Math.sqrt(0.2 * 0.8 / 10_000);
                double g = r.invalidationRate(0);
                assertTrue(g >= 0 && g <= 0.2 + 4 * se, "Γ̃ = " + g);
                assertTrue(r.describe().contains("over reachable values"), r.describe());
                assertFalse(q.describe().contains("over reachable values"), q.describe());
            }
            final double[] row = raw;
            CfxException e = assertThrows(CfxException.class, () -> Coherent.explain(schema, linear, reach, row));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
            assertTrue(e.getMessage().contains("reachable"), e.getMessage());
            CfxException bad = assertThrows(CfxException.class, () -> Config.builder().robustBox(7));
            assertEquals(Status.INVALID_ARGUMENT, bad.statusCode());
            assertThrows(NullPointerException.class, () -> Config.builder().robustBox(null));
        }
    }
}
