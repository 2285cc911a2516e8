package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * Advice the model accepts, or none (issue 25), through the JNI shim: a robust result and each option
 * of a checked COPA plan say whether they are valid, repaired or no advice; the advice row is accepted
 * by the model (scored again here), the status agrees with the JSON, and the words with the status.
 */
class AdviceCheckTest {
    static void assertAdvice(
            Schema schema, Model model, AdviceStatus status, double[] advice, double[] own, String text) {
        if (status.hasAdvice()) {
            assertEquals(schema.nFeatures(), advice.length);
            assertTrue(model.predictRaw(schema, advice).accepted(), text);
            assertTrue(text.contains("accepted, probability"), text);
            if (status == AdviceStatus.VALID) {
                assertArrayEquals(own, advice, 0.0);
                assertFalse(text.contains("repaired"), text);
            } else {
                assertTrue(text.contains("repaired by the exact engine"), text);
            }
        } else {
            assertEquals(0, advice.length);
            assertTrue(text.contains("no valid advice found"), text);
        }
    }

    static String outcome(AdviceStatus s) {
        return switch (s) {
            case VALID -> "\"outcome\": \"valid\"";
            case REPAIRED_MOVED_FEATURES, REPAIRED_WHOLE_SCHEMA -> "\"outcome\": \"repaired\"";
            case NO_ADVICE -> "\"outcome\": \"no_advice\"";
        };
    }

    @Test
    void robustAndCopaAnswersAreCheckedAsAdvice() {
        assumeTrue(Robustness.available() && Copa.available(), "cfx.h has no robust or COPA entry points yet");
        try (Dataset german = Dataset.loadGerman(TestData.germanPath());
                Schema schema = german.schema();
                Dataset.Split split = german.holdoutSplit();
                Model model = Model.fitLinear(split.train(), 1.0);
                Uncertainty ensemble = Uncertainty.fromDataset(split.train(), 10, 1);
                Noise noise = Noise.gaussian(schema, 0.01)) {
            double[] raw = null;
            for (int i = 0; raw == null; i++) {
                if (!model.predictRaw(schema, split.test().row(i)).accepted()) {
                    raw = split.test().row(i);
                }
            }
            for (RobustMethod method : RobustMethod.values()) {
                try (RobustResult r = Robustness.generate(schema, model, noise, method, null, raw)) {
                    AdviceStatus s = r.adviceStatus();
                    assertAdvice(schema, model, s, r.advice(), r.raw(schema), r.describe());
                    assertTrue(r.toJson(schema, model).contains(outcome(s)), method + ": " + s);
                    assertTrue(r.toString().contains(s.name()), r.toString());
                }
            }
            int seen = 0;
            try (Config cfg = Config.builder().seed(3).build();
                    CopaResult plan = Copa.planChecked(schema, ensemble, model, cfg, raw);
                    CopaResult unchecked = Copa.plan(schema, ensemble, cfg, raw)) {
                String[] lines = plan.describe().split("\n");
                assertEquals(plan.nOptions(), lines.length, plan.describe());
                String json = plan.toJson();
                for (int k = 0; k < plan.nOptions(); k++) {
                    AdviceStatus s = plan.adviceStatus(k);
                    assertAdvice(schema, model, s, plan.advice(k), plan.option(k), lines[k]);
                    assertTrue(lines[k].startsWith("option " + (k + 1) + ": "), lines[k]);
                    assertTrue(json.contains(outcome(s)), json);
                    seen++;
                }
                assertEquals(unchecked.nOptions(), plan.nOptions());
                assertArrayEquals(unchecked.option(0), plan.option(0), 0.0, "the same plan, only checked");
                CfxException e = assertThrows(CfxException.class, () -> unchecked.adviceStatus(0));
                assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
                assertTrue(e.getMessage().contains("cfx_copa_plan_new_checked"), e.getMessage());
                CfxException nf = assertThrows(CfxException.class, () -> plan.adviceStatus(plan.nOptions()));
                assertEquals(Status.NOT_FOUND, nf.statusCode());
                assertThrows(IndexOutOfBoundsException.class, () -> plan.advice(-1));
            }
            assertEquals(5, seen);
        }
    }

    /**
     * The applicant with only income actionable ({@code bindings/testdata/advice_check_schema.json}; its
     * README gives these outcomes): Wachter's row is valid advice; COPA under today's model as the
     * future mean gives five valid options; with the income weight flipped every option is declined and
     * repaired over income to 58,334, the cheapest accepted income.
     */
    @Test
    void knownOutcomesOnTheIncomeOnlyApplicant() throws java.io.IOException {
        assumeTrue(Robustness.available() && Copa.available(), "cfx.h has no robust or COPA entry points yet");
        String sj = java.nio.file.Files.readString(TestData.root().resolve("bindings/testdata/advice_check_schema.json"));
        String mj = java.nio.file.Files.readString(TestData.root().resolve("examples/c/data/applicant_model.json"));
        double[] applicant = {30000, -7, 1, 30};
        double[] today = {-3.0, 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0};
        double[] flipped = today.clone();
        flipped[1] = -4.0;
        double[][] cov = new double[8][8];
        for (int i = 0; i < 8; i++) {
            cov[i][i] = 0.05;
        }
        try (Schema schema = Schema.fromJson(sj);
                Model model = Model.fromJson(schema, mj);
                Noise noise = Noise.gaussian(schema, 0.01);
                RobustResult w = Robustness.generate(schema, model, noise, RobustMethod.WACHTER, null, applicant);
                Uncertainty u = Uncertainty.fromMoments(today, cov);
                Uncertainty uf = Uncertainty.fromMoments(flipped, cov);
                CopaResult valid = Copa.planChecked(schema, u, model, null, applicant);
                CopaResult repaired = Copa.planChecked(schema, uf, model, null, applicant)) {
            assertEquals(AdviceStatus.VALID, w.adviceStatus());
            assertArrayEquals(w.raw(schema), w.advice(), 0.0);
            assertTrue(w.describe().startsWith("income: 30000 → "), w.describe());
            assertEquals(5, valid.nOptions());
            // The box binds all five options at the same limit: one row, described once.
            String[] vl = valid.describe().split("\n");
            String[] rl = repaired.describe().split("\n");
            assertEquals(1, vl.length, valid.describe());
            assertTrue(vl[0].startsWith("options 1, 2, 3, 4 and 5 (the same row): income: 30000 → 100000 (accepted"), vl[0]);
            assertEquals(1, rl.length, repaired.describe());
            assertTrue(rl[0].contains("repaired by the exact engine over the features the method moved"), rl[0]);
            for (int k = 0; k < 5; k++) {
                assertEquals(AdviceStatus.VALID, valid.adviceStatus(k));
                assertArrayEquals(valid.option(k), valid.advice(k), 0.0);
                assertEquals(AdviceStatus.REPAIRED_MOVED_FEATURES, repaired.adviceStatus(k));
                assertArrayEquals(new double[] {58334, -7, 1, 30}, repaired.advice(k), 0.0);
                assertFalse(model.predictRaw(schema, repaired.option(k)).accepted());
            }
            assertTrue(model.predictRaw(schema, new double[] {58334, -7, 1, 30}).accepted());
            assertFalse(model.predictRaw(schema, new double[] {58333, -7, 1, 30}).accepted());
        }
    }
}
