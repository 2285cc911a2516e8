package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Waiting advice through the C ABI: the first declined German applicant under the German preset
 * with waiting at 0.001 per month gets the months, costs and row that Rust's explain_with_waiting
 * gives (bindings/scenario_expected.txt, written by examples/binding_scenario.rs), bit for bit.
 */
class WaitingTest {
    @Test
    void germanWaitingAdviceMatchesRustBitForBit() throws Exception {
        Map<String, String> exp = TestData.expected();
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Schema schema = d.schema();
                Schema advised = schema.advicePreset(AdvicePreset.GERMAN_CREDIT, 0.001);
                Dataset.Split split = d.holdoutSplit();
                Model model = Model.fitLinear(split.train(), 1.0)) {
            double[] applicant = split.test().row(Integer.parseInt(exp.get("first_declined")));
            try (WaitingAdvice a = Coherent.explainWithWaiting(advised, model, null, applicant)) {
                assertTrue(a.found());
                WaitingAdvice.Summary s = a.summary();
                assertEquals(Integer.parseInt(exp.get("waiting_months")), s.months());
                assertBits(exp.get("waiting_wait_cost"), s.waitCost());
                assertBits(exp.get("waiting_cost"), s.totalCost());
                assertTrue(s.provedBy().isPresent(), "moves after the wait");
                String[] raw = exp.get("waiting_raw").split(",");
                double[] fin = a.finalRow();
                assertEquals(raw.length, fin.length);
                for (int i = 0; i < raw.length; i++) {
                    assertBits(raw[i], fin[i]);
                }
                int age = schema.indexOf("age_in_years");
                assertEquals(applicant[age] + s.months() / 12, a.waitedRow()[age]);
                if (s.months() > 0) {
                    assertTrue(a.describe().startsWith("wait " + s.months() + " months"), a.describe());
                } else {
                    assertFalse(a.describe().startsWith("wait"), a.describe());
                }
                assertTrue(a.toJson().contains("\"kind\": \"waiting_advice\""), a.toJson());
            }
            // An applicant the model accepts is refused.
            double[] p = model.probabilities(split.test().encodedRows());
            int accepted = 0;
            while (p[accepted] <= model.threshold()) {
                accepted++;
            }
            double[] ok = split.test().row(accepted);
            CfxException e =
                    assertThrows(CfxException.class, () -> Coherent.explainWithWaiting(advised, model, null, ok));
            assertEquals("CFX_STATUS_INVALID_ARGUMENT", e.statusName());
        }
    }

    /**
     * Income 0..100 in whole units and months 0..10 growing one a month, waiting at 0.001 a month;
     * the model 4·slot(income) + w·slot(months) − 3 declines income 20 at month 0. No month's
     * income need is a whole number at the separable solver's root, so a node limit of 1 stops
     * every month's solve: with w = 1 (waiting alone never accepted) the outcome is UNPROVEN, with
     * w = 3 (accepted from month 8) the advice "wait 8 months" is FOUND but not proven. Without the
     * limit both are proven.
     */
    @Test
    void aNodeLimitGivesUnprovenAdvice() {
        double[] row = {20, 0};
        try (Schema s = Schema.builder()
                        .contiguous("income", 0, 100, true)
                        .contiguous("months", 0, 10, true)
                        .timeGrowth(1, null)
                        .waiting(0.001, 10)
                        .build();
                Config limited = Config.builder().solver(Solver.SEPARABLE).nodeLimit(1).build();
                Config full = Config.builder().solver(Solver.SEPARABLE).build();
                Model never = Model.linear(new double[] {4, 1}, -3, 0.5);
                Model at8 = Model.linear(new double[] {4, 3}, -3, 0.5)) {
            try (WaitingAdvice a = Coherent.explainWithWaiting(s, never, limited, row)) {
                assertEquals(WaitingAdvice.Outcome.UNPROVEN, a.outcome());
                assertFalse(a.found());
                assertFalse(a.proven());
                assertTrue(a.describe().startsWith("no advice found, and none proven impossible"), a.describe());
                assertTrue(a.toJson().contains("\"raw_status\": -3"), a.toJson());
                assertEquals("CFX_STATUS_NOT_FOUND", assertThrows(CfxException.class, a::summary).statusName());
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(s, never, full, row)) {
                assertEquals(WaitingAdvice.Outcome.FOUND, a.outcome());
                assertTrue(a.proven());
                assertEquals(10, a.summary().months());
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(s, at8, limited, row)) {
                assertEquals(WaitingAdvice.Outcome.FOUND, a.outcome());
                assertFalse(a.proven());
                assertEquals(8, a.summary().months());
                assertTrue(a.describe().endsWith("(not proven optimal: the separable solver's node limit stopped a solve)"),
                        a.describe());
                assertTrue(a.toJson().contains("\"proven\": false"), a.toJson());
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(s, at8, full, row)) {
                assertTrue(a.proven());
                assertEquals(8, a.summary().months());
            }
        }
        try (ConfigBuilder b = Config.builder()) {
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.nodeLimit(0)).statusCode());
        }
    }

    private static void assertBits(String expected, double actual) {
        assertEquals(
                Double.doubleToLongBits(Double.parseDouble(expected)),
                Double.doubleToLongBits(actual),
                expected + " vs " + actual);
    }
}
