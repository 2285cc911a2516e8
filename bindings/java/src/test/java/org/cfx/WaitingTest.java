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
                assertTrue(a.describe().startsWith("wait " + s.months() + " months"), a.describe());
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

    private static void assertBits(String expected, double actual) {
        assertEquals(
                Double.doubleToLongBits(Double.parseDouble(expected)),
                Double.doubleToLongBits(actual),
                expected + " vs " + actual);
    }
}
